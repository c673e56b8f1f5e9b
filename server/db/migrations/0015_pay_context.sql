-- A wallet pay's context (server/services/orders/wallet-context.ts) as a PL/pgSQL function: PostgreSQL keeps a
-- PL/pgSQL function's query plans per session, so the query is planned once per connection (once in all on the
-- embedded PGlite), not on every pay; planning was most of its cost (docs/decisions.md D24). It answers what the
-- inline query answered, one row or none: the device and whether a session is active on it, the price, the
-- merchant, a first order under the member's Idempotency-Key, the ids of the wallets the split credits and the
-- venue's share rules (active partners only).
CREATE FUNCTION pay_context(p_member integer, p_device integer, p_price integer, p_key text)
RETURNS TABLE (
  device_name text, device_venue_id integer, merchant_id integer, device_status text, heartbeat_ms float8,
  busy boolean, price_id integer, price_venue_id integer, price_active boolean, price_fen integer,
  minutes integer, merchant_status text, fee_rate_bp integer, replay_id integer, platform_wallet integer,
  merchant_wallet integer, promotion_wallet integer, till_wallet integer, rules json
) LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  SELECT d.name, d.venue_id, d.merchant_id, d.status,
    (extract(epoch FROM d.last_heartbeat_at) * 1000)::float8,
    EXISTS (SELECT 1 FROM device_sessions s WHERE s.device_id = d.id AND s.status IN ('starting', 'running')),
    p.id, p.venue_id, p.active, p.price_fen, p.minutes,
    m.status, m.fee_rate_bp,
    (SELECT o.id FROM orders o WHERE o.member_id = p_member AND o.idempotency_key = p_key),
    (SELECT w.id FROM wallets w WHERE w.kind = 'platform' ORDER BY w.id LIMIT 1),
    (SELECT w.id FROM wallets w WHERE w.kind = 'merchant' AND w.merchant_id = d.merchant_id),
    (SELECT w.id FROM wallets w WHERE w.kind = 'external' AND w.code = 'promotion'),
    (SELECT w.id FROM wallets w WHERE w.kind = 'external' AND w.code = 'till'),
    (SELECT coalesce(json_agg(json_build_object('partner_account_id', r.partner_account_id,
        'ratio_bp', r.ratio_bp, 'wallet_id', pw.id)), '[]'::json)
      FROM share_rules r
        JOIN accounts a ON a.id = r.partner_account_id AND a.status = 'active'
        LEFT JOIN wallets pw ON pw.kind = 'partner' AND pw.account_id = r.partner_account_id
      WHERE r.venue_id = d.venue_id AND r.merchant_id = d.merchant_id)
  FROM devices d
    LEFT JOIN service_prices p ON p.id = p_price
    LEFT JOIN merchants m ON m.id = d.merchant_id
  WHERE d.id = p_device;
END
$$;
