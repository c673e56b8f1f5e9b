ALTER TABLE "withdrawals" ADD COLUMN "reference" text;--> statement-breakpoint
ALTER TABLE "withdrawals" ADD COLUMN "idempotency_key" text;--> statement-breakpoint
CREATE INDEX "withdrawal_events_withdrawal_idx" ON "withdrawal_events" USING btree ("withdrawal_id");--> statement-breakpoint
CREATE INDEX "withdrawals_account_idx" ON "withdrawals" USING btree ("account_id");--> statement-breakpoint
CREATE UNIQUE INDEX "withdrawals_idempotency_uq" ON "withdrawals" USING btree ("account_id","idempotency_key") WHERE "withdrawals"."idempotency_key" is not null;