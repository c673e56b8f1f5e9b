ALTER TABLE "wallets" DROP CONSTRAINT "wallets_not_negative";--> statement-breakpoint
ALTER TABLE "wallets" ADD COLUMN "cash_principal_fen" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "cash_fen" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "wallets" ADD CONSTRAINT "wallets_cash_member_only" CHECK ("wallets"."kind" = 'member' or "wallets"."cash_principal_fen" = 0);--> statement-breakpoint
ALTER TABLE "wallets" ADD CONSTRAINT "wallets_not_negative" CHECK ("wallets"."kind" = 'external' or (("wallets"."principal_fen" >= 0 or "wallets"."kind" = 'merchant') and "wallets"."cash_principal_fen" >= 0 and "wallets"."bonus_fen" >= 0 and "wallets"."frozen_fen" >= 0));--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_cash" CHECK ("orders"."cash_fen" between 0 and "orders"."amount_fen");