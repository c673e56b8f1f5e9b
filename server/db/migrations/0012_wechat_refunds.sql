CREATE TABLE "wechat_refunds" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "wechat_refunds_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"order_id" integer NOT NULL,
	"out_refund_no" text NOT NULL,
	"amount_fen" integer NOT NULL,
	"reason" text NOT NULL,
	"status" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"wechat_refund_id" text,
	"last_error" text,
	"sent_at" timestamp with time zone,
	"succeeded_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "wechat_refunds_out_refund_no_unique" UNIQUE("out_refund_no"),
	CONSTRAINT "wechat_refunds_amount" CHECK ("wechat_refunds"."amount_fen" > 0)
);
--> statement-breakpoint
ALTER TABLE "sandbox_pay_refunds" ADD COLUMN "settles_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "sandbox_pay_refunds" ADD COLUMN "final_status" text;--> statement-breakpoint
ALTER TABLE "sandbox_pay_transactions" ADD COLUMN "refund_outcome" text;--> statement-breakpoint
ALTER TABLE "wechat_refunds" ADD CONSTRAINT "wechat_refunds_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "wechat_refunds_order_idx" ON "wechat_refunds" USING btree ("order_id");--> statement-breakpoint
CREATE INDEX "wechat_refunds_due_idx" ON "wechat_refunds" USING btree ("next_attempt_at") WHERE "wechat_refunds"."status" in ('pending', 'processing');