CREATE TABLE "report_days" (
	"tz" text NOT NULL,
	"day" date NOT NULL,
	"start_at" timestamp with time zone NOT NULL,
	"end_at" timestamp with time zone NOT NULL,
	"fresh" boolean DEFAULT false NOT NULL,
	"rolled_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "report_days_tz_day_pk" PRIMARY KEY("tz","day")
);
--> statement-breakpoint
CREATE TABLE "report_device_days" (
	"tz" text NOT NULL,
	"day" date NOT NULL,
	"merchant_id" integer NOT NULL,
	"venue_id" integer,
	"device_id" integer NOT NULL,
	"operator_account_id" integer,
	"sessions" integer NOT NULL,
	"minutes" bigint NOT NULL,
	"revenue_fen" bigint NOT NULL,
	"refund_fen" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "report_money_days" (
	"tz" text NOT NULL,
	"day" date NOT NULL,
	"merchant_id" integer NOT NULL,
	"venue_id" integer,
	"kind" text NOT NULL,
	"method" text NOT NULL,
	"operator_account_id" integer,
	"count" integer NOT NULL,
	"amount_fen" bigint NOT NULL,
	"bonus_fen" bigint NOT NULL,
	"refund_fen" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "report_days_end_idx" ON "report_days" USING btree ("end_at");--> statement-breakpoint
CREATE INDEX "report_device_days_merchant_idx" ON "report_device_days" USING btree ("tz","merchant_id","day");--> statement-breakpoint
CREATE INDEX "report_device_days_day_idx" ON "report_device_days" USING btree ("tz","day");--> statement-breakpoint
CREATE INDEX "report_money_days_merchant_idx" ON "report_money_days" USING btree ("tz","merchant_id","day");--> statement-breakpoint
CREATE INDEX "report_money_days_day_idx" ON "report_money_days" USING btree ("tz","day");--> statement-breakpoint
-- A change to an order (insert, update, delete) marks the rolled local day of its paid moment stale, old and new
-- moment alike, in the same transaction (docs/decisions.md D21). One statement-level trigger per event with its
-- transition tables: a bulk insert costs one call. The UPDATE waits for a rollup holding the day's row lock and
-- then marks it stale, so a change committed while a day is being rolled is never lost. Today's orders find no row
-- (only closed days have one), through the end_at index.
CREATE FUNCTION report_days_mark_stale(moments timestamptz[]) RETURNS void LANGUAGE sql VOLATILE AS $$
  UPDATE report_days d SET fresh = false
  WHERE d.end_at > (SELECT min(m) FROM unnest(moments) m)
    AND EXISTS (SELECT 1 FROM unnest(moments) m WHERE m >= d.start_at AND m < d.end_at)
$$;--> statement-breakpoint
CREATE FUNCTION orders_report_days_stale() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM report_days_mark_stale(ARRAY(SELECT coalesce(paid_at, created_at) FROM new_rows));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM report_days_mark_stale(ARRAY(SELECT coalesce(paid_at, created_at) FROM old_rows));
  ELSE
    PERFORM report_days_mark_stale(ARRAY(SELECT coalesce(paid_at, created_at) FROM old_rows
      UNION SELECT coalesce(paid_at, created_at) FROM new_rows));
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER orders_report_days_insert AFTER INSERT ON orders REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION orders_report_days_stale();--> statement-breakpoint
CREATE TRIGGER orders_report_days_update AFTER UPDATE ON orders REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION orders_report_days_stale();--> statement-breakpoint
CREATE TRIGGER orders_report_days_delete AFTER DELETE ON orders REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION orders_report_days_stale();
