-- Member codes (docs/decisions.md D12): 8 digits, first 1-9, the last a Damm check digit (src/domain/member-code.ts
-- computes the same digit). member_code() draws one at random that no member has yet; it is the column's default,
-- so every new member gets one at sign-up whoever inserts the row, and existing members are given one here, one
-- UPDATE per row so that each draw sees the codes handed out before it.
CREATE FUNCTION member_code_check(body text) RETURNS int LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  t int[] := ARRAY[0,3,1,7,5,9,8,6,4,2, 7,0,9,2,1,5,4,8,6,3, 4,2,0,6,8,7,1,3,5,9, 1,7,5,0,9,8,3,4,2,6,
                   6,1,2,3,0,4,5,9,7,8, 3,6,7,4,2,0,9,5,8,1, 5,8,6,9,7,2,0,1,3,4, 8,9,4,5,3,6,2,0,1,7,
                   9,4,3,8,6,1,7,2,0,5, 2,5,8,1,4,3,6,7,9,0];
  interim int := 0;
BEGIN
  FOR i IN 1..length(body) LOOP
    interim := t[interim * 10 + (ascii(substr(body, i, 1)) - 48) + 1];
  END LOOP;
  RETURN interim;
END $$;--> statement-breakpoint
CREATE FUNCTION member_code() RETURNS text LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  body text;
  candidate text;
BEGIN
  LOOP
    body := (1 + floor(random() * 9))::int::text || lpad(floor(random() * 1000000)::int::text, 6, '0');
    candidate := body || member_code_check(body)::text;
    EXIT WHEN NOT EXISTS (SELECT 1 FROM members WHERE code = candidate);
  END LOOP;
  RETURN candidate;
END $$;--> statement-breakpoint
ALTER TABLE "members" ADD COLUMN "code" text;--> statement-breakpoint
DO $$
DECLARE
  m record;
BEGIN
  FOR m IN SELECT id FROM members WHERE code IS NULL ORDER BY id LOOP
    UPDATE members SET code = member_code() WHERE id = m.id;
  END LOOP;
END $$;--> statement-breakpoint
ALTER TABLE "members" ALTER COLUMN "code" SET DEFAULT member_code();--> statement-breakpoint
ALTER TABLE "members" ALTER COLUMN "code" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "members" ADD CONSTRAINT "members_code_unique" UNIQUE("code");--> statement-breakpoint
-- Staff orders: the cash recharge's note and the service start's reason; a staff member's Idempotency-Key.
ALTER TABLE "orders" ADD COLUMN "note" text;--> statement-breakpoint
CREATE UNIQUE INDEX "orders_operator_idem_uq" ON "orders" USING btree ("operator_account_id","idempotency_key");--> statement-breakpoint
-- A free service start (kind 'service') is an order of 0 fen; every other order takes money.
ALTER TABLE "orders" DROP CONSTRAINT "orders_amount";--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_amount" CHECK ("orders"."amount_fen" > 0 or ("orders"."kind" = 'service' and "orders"."amount_fen" = 0));
