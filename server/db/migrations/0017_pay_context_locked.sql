-- A wallet pay's first statement (server/services/orders/wallet-context.ts, docs/decisions.md D30): the member's
-- wallet at the device's merchant locked FOR UPDATE and, under that lock, the pay's context (`pay_context`, migration
-- 0015), in one call instead of two statements. VOLATILE, so its second query takes a fresh snapshot after the lock
-- wait, as the second statement did: an order a twin request committed meanwhile is seen (the replay), and so is a
-- session another pay started on the device (the busy check). No rows when the member has no wallet there yet (the
-- caller opens one and asks in two statements). Balances come as float8: exact to 2^53, read as numbers by both drivers.
CREATE FUNCTION pay_context_locked(p_member integer, p_device integer, p_price integer, p_key text)
RETURNS TABLE (
  w_id integer, w_kind text, w_code text, w_member_id integer, w_merchant_id integer, w_account_id integer,
  w_principal_fen float8, w_cash_principal_fen float8, w_bonus_fen float8, w_frozen_fen float8,
  w_created_at timestamptz,
  device_name text, device_venue_id integer, merchant_id integer, device_status text, heartbeat_ms float8,
  busy boolean, price_id integer, price_venue_id integer, price_active boolean, price_fen integer,
  minutes integer, merchant_status text, fee_rate_bp integer, replay_id integer, platform_wallet integer,
  merchant_wallet integer, promotion_wallet integer, till_wallet integer, rules json
) LANGUAGE plpgsql VOLATILE AS $$
#variable_conflict use_column
DECLARE
  w wallets%ROWTYPE;
BEGIN
  SELECT wl.* INTO w
  FROM wallets wl JOIN devices d ON d.merchant_id = wl.merchant_id
  WHERE d.id = p_device AND wl.kind = 'member' AND wl.member_id = p_member
  FOR UPDATE OF wl;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  RETURN QUERY
  SELECT w.id, w.kind, w.code, w.member_id, w.merchant_id, w.account_id,
    w.principal_fen::float8, w.cash_principal_fen::float8, w.bonus_fen::float8, w.frozen_fen::float8,
    w.created_at, c.*
  FROM pay_context(p_member, p_device, p_price, p_key) c;
END
$$;
