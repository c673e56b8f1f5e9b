CREATE TABLE "bonus_credits" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "bonus_credits_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"merchant_id" integer NOT NULL,
	"member_id" integer NOT NULL,
	"amount_fen" integer NOT NULL,
	"note" text NOT NULL,
	"account_id" integer NOT NULL,
	"idempotency_key" text NOT NULL,
	"ledger_transaction_id" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "bonus_credits_amount" CHECK ("bonus_credits"."amount_fen" > 0)
);
--> statement-breakpoint
CREATE TABLE "share_rule_changes" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "share_rule_changes_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"rule_id" integer NOT NULL,
	"merchant_id" integer NOT NULL,
	"venue_id" integer NOT NULL,
	"partner_account_id" integer NOT NULL,
	"action" text NOT NULL,
	"ratio_bp" integer,
	"previous_bp" integer,
	"account_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "bonus_credits" ADD CONSTRAINT "bonus_credits_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bonus_credits" ADD CONSTRAINT "bonus_credits_member_id_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."members"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bonus_credits" ADD CONSTRAINT "bonus_credits_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bonus_credits" ADD CONSTRAINT "bonus_credits_ledger_transaction_id_ledger_transactions_id_fk" FOREIGN KEY ("ledger_transaction_id") REFERENCES "public"."ledger_transactions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "share_rule_changes" ADD CONSTRAINT "share_rule_changes_merchant_id_merchants_id_fk" FOREIGN KEY ("merchant_id") REFERENCES "public"."merchants"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "share_rule_changes" ADD CONSTRAINT "share_rule_changes_venue_id_venues_id_fk" FOREIGN KEY ("venue_id") REFERENCES "public"."venues"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "share_rule_changes" ADD CONSTRAINT "share_rule_changes_partner_account_id_accounts_id_fk" FOREIGN KEY ("partner_account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "share_rule_changes" ADD CONSTRAINT "share_rule_changes_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "bonus_credits_idem_uq" ON "bonus_credits" USING btree ("merchant_id","idempotency_key");--> statement-breakpoint
CREATE INDEX "bonus_credits_member_idx" ON "bonus_credits" USING btree ("member_id","merchant_id");--> statement-breakpoint
CREATE INDEX "share_rule_changes_venue_idx" ON "share_rule_changes" USING btree ("venue_id","created_at");--> statement-breakpoint
CREATE INDEX "share_rule_changes_merchant_idx" ON "share_rule_changes" USING btree ("merchant_id","created_at");--> statement-breakpoint
INSERT INTO "share_rule_changes" ("rule_id", "merchant_id", "venue_id", "partner_account_id", "action", "ratio_bp", "created_at") SELECT "id", "merchant_id", "venue_id", "partner_account_id", 'create', "ratio_bp", "created_at" FROM "share_rules";
