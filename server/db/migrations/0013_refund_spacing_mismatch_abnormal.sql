DROP INDEX "wechat_refunds_due_idx";--> statement-breakpoint
ALTER TABLE "wechat_refunds" ADD COLUMN "last_request_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "wechat_refunds" ADD COLUMN "mismatches" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "wechat_refunds" ADD COLUMN "abnormal_type" text;--> statement-breakpoint
ALTER TABLE "wechat_refunds" ADD COLUMN "abnormal_bank_type" text;--> statement-breakpoint
ALTER TABLE "wechat_refunds" ADD COLUMN "abnormal_bank_account" text;--> statement-breakpoint
ALTER TABLE "wechat_refunds" ADD COLUMN "abnormal_real_name" text;--> statement-breakpoint
ALTER TABLE "wechat_refunds" ADD COLUMN "abnormal_key_serial" text;--> statement-breakpoint
ALTER TABLE "sandbox_pay_refunds" ADD COLUMN "abnormal_type" text;--> statement-breakpoint
ALTER TABLE "sandbox_pay_refunds" ADD COLUMN "received_account" text;--> statement-breakpoint
CREATE INDEX "wechat_refunds_due_idx" ON "wechat_refunds" USING btree ("next_attempt_at") WHERE "wechat_refunds"."status" in ('pending', 'processing', 'abnormal_pending');