-- A wallet pay's first statement when the pay comes with its member's session cookie (server/services/orders/
-- wallet-context.ts, docs/decisions.md D31): the session resolved (the token's hash, unexpired, not revoked, as every
-- member route checks it) and then, in the same call, `pay_context_locked` (migration 0017) for that member. No rows:
-- no live session (the caller answers 401 and rolls back, nothing written). One row with `w_id` null: the member has
-- no wallet at the device's merchant yet, or the device does not exist (the caller opens the wallet and asks in two
-- statements, as before). VOLATILE, like the function it calls, so each query inside takes a fresh snapshot.
CREATE FUNCTION pay_context_for_session(p_hash text, p_now timestamptz, p_device integer, p_price integer, p_key text)
RETURNS TABLE (
  member_id integer,
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
  m integer;
BEGIN
  SELECT s.member_id INTO m
  FROM member_sessions s
  WHERE s.token_hash = p_hash AND s.expires_at > p_now AND s.revoked_at IS NULL;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  RETURN QUERY
  SELECT m, l.*
  FROM (SELECT 1) AS one LEFT JOIN LATERAL pay_context_locked(m, p_device, p_price, p_key) l ON true;
END
$$;
