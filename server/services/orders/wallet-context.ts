/**
 * What a wallet pay reads, in two statements (docs/performance.md): the member's wallet locked through the device's
 * merchant, then, under that lock (a fresh snapshot), everything else in one query: the device and whether a
 * session is active on it, the price, the merchant, the venue's share rules (active partners only, docs/decisions.md
 * D19), a first order under the same Idempotency-Key and the ids of the wallets the split credits. Nothing is cached, so a staff edit is seen by the
 * next pay on every instance.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Tx } from '../../db/client';
import { devices, wallets } from '../../db/schema';
import { type Wallet, memberWallet } from '../ledger';

/**
 * The member's wallet at the device's merchant, locked (FOR UPDATE); opened when the member has none there yet.
 * Undefined when the device does not exist.
 */
export async function lockWalletForDevice(
  tx: Tx,
  memberId: number,
  deviceId: number,
): Promise<Wallet | undefined> {
  const [row] = await tx
    .select({ w: wallets })
    .from(wallets)
    .innerJoin(devices, eq(devices.merchant_id, wallets.merchant_id))
    .where(and(eq(devices.id, deviceId), eq(wallets.kind, 'member'), eq(wallets.member_id, memberId)))
    .for('update', { of: wallets });
  if (row) return row.w;
  const [device] = await tx
    .select({ merchant_id: devices.merchant_id })
    .from(devices)
    .where(eq(devices.id, deviceId));
  if (!device) return undefined;
  return memberWallet(tx, memberId, device.merchant_id, { lock: true });
}

export interface PayContext {
  device_name: string;
  device_venue_id: number;
  merchant_id: number;
  device_status: string;
  heartbeat_ms: number | null;
  busy: boolean;
  price_id: number | null;
  price_venue_id: number | null;
  price_active: boolean | null;
  price_fen: number | null;
  minutes: number | null;
  merchant_status: string | null;
  fee_rate_bp: number | null;
  replay_id: number | null;
  platform_wallet: number | null;
  merchant_wallet: number | null;
  promotion_wallet: number | null;
  till_wallet: number | null;
  rules: { partner_account_id: number; ratio_bp: number; wallet_id: number | null }[];
}

/** The pay's context in one statement (run it after the wallet lock); undefined when the device does not exist. */
export async function payContext(
  tx: Tx,
  q: { memberId: number; deviceId: number; priceId: number; key: string | null },
): Promise<PayContext | undefined> {
  const res = (await tx.execute(sql`
    select d.name as device_name, d.venue_id as device_venue_id, d.merchant_id, d.status as device_status,
      (extract(epoch from d.last_heartbeat_at) * 1000)::float8 as heartbeat_ms,
      exists (select 1 from device_sessions s
        where s.device_id = d.id and s.status in ('starting', 'running')) as busy,
      p.id as price_id, p.venue_id as price_venue_id, p.active as price_active, p.price_fen, p.minutes,
      m.status as merchant_status, m.fee_rate_bp,
      (select o.id from orders o
        where o.member_id = ${q.memberId}::int and o.idempotency_key = ${q.key}::text) as replay_id,
      (select id from wallets where kind = 'platform' order by id limit 1) as platform_wallet,
      (select id from wallets where kind = 'merchant' and merchant_id = d.merchant_id) as merchant_wallet,
      (select id from wallets where kind = 'external' and code = 'promotion') as promotion_wallet,
      (select id from wallets where kind = 'external' and code = 'till') as till_wallet,
      (select coalesce(json_agg(json_build_object('partner_account_id', r.partner_account_id,
          'ratio_bp', r.ratio_bp, 'wallet_id', pw.id)), '[]'::json)
        from share_rules r
          join accounts a on a.id = r.partner_account_id and a.status = 'active'
          left join wallets pw on pw.kind = 'partner' and pw.account_id = r.partner_account_id
        where r.venue_id = d.venue_id and r.merchant_id = d.merchant_id) as rules
    from devices d
      left join service_prices p on p.id = ${q.priceId}::int
      left join merchants m on m.id = d.merchant_id
    where d.id = ${q.deviceId}::int`)) as unknown as { rows: PayContext[] };
  const row = res.rows[0];
  if (!row) return undefined;
  // json arrives parsed from node-postgres and PGlite alike; a string only from a driver that does not parse it.
  if (typeof row.rules === 'string') row.rules = JSON.parse(row.rules) as PayContext['rules'];
  return row;
}
