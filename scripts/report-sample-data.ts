/**
 * Sample orders for the reports' benchmark and browser test, written by one `generate_series` statement (a million
 * orders in seconds): consumption spread over a merchant's devices (wallet, WeChat, cash; every 13th refunded in
 * half after an early stop) with their ended sessions, and every 10th order a recharge (WeChat with bonus, or cash
 * taken by `employeeId`). Paid moments are spread evenly over the `days` before `end`.
 */
import { sql } from 'drizzle-orm';
import type { Db } from '../server/db/client';

export interface SampleOptions {
  merchantId: number;
  employeeId: number;
  orders: number;
  days: number;
  end: Date;
  /** Distinguishes the order numbers of several runs. */
  tag: string;
}

export async function seedSampleOrders(db: Db, o: SampleOptions): Promise<void> {
  const span = o.days * 86_400;
  await db.execute(sql`
    with ds as (
      select array_agg(id order by id) as ids, array_agg(venue_id order by id) as vs, count(*)::int as n
      from devices where merchant_id = ${o.merchantId}::int
    ),
    g as (
      select g, (g % 10 = 0) as recharge, (g % 13 = 0) as refund,
        (${o.end.toISOString()}::timestamptz - make_interval(secs => (g::float8 * ${span}::float8 / ${o.orders}::float8))) as t,
        (array['wallet', 'wechat', 'cash'])[1 + g % 3] as method, (array[200, 350, 600])[1 + (g / 3) % 3] as price,
        (array[30, 60, 120])[1 + (g / 3) % 3] as minutes
      from generate_series(1, ${o.orders}::int) g
    )
    insert into orders (order_no, kind, method, status, merchant_id, venue_id, device_id, operator_account_id,
      amount_fen, bonus_fen, refunded_fen, minutes, paid_at, created_at)
    select ${`S${o.tag}-`} || g.g,
      case when g.recharge then 'recharge' else 'consume' end,
      case when g.recharge then (case when g.g % 20 = 0 then 'wechat' else 'cash' end) else g.method end,
      case when g.refund and not g.recharge then 'refunded' else 'completed' end,
      ${o.merchantId}::int,
      case when g.recharge then null else ds.vs[1 + g.g % ds.n] end,
      case when g.recharge then null else ds.ids[1 + g.g % ds.n] end,
      case when (g.recharge and g.g % 20 <> 0) or (not g.recharge and g.method = 'cash') then ${o.employeeId}::int end,
      case when g.recharge then 5000 else g.price end,
      case when g.recharge and g.g % 20 = 0 then 500 else 0 end,
      case when g.refund and not g.recharge then g.price / 2 else 0 end,
      case when g.recharge then null else g.minutes end,
      g.t, g.t
    from g, ds`);
  await db.execute(sql`
    insert into device_sessions (order_id, device_id, minutes, status, started_at, ends_at, ended_at, created_at)
    select o.id, o.device_id, o.minutes, case when o.refunded_fen > 0 then 'stopped' else 'ended' end,
      o.paid_at, o.paid_at + make_interval(mins => o.minutes),
      o.paid_at + make_interval(secs => case when o.refunded_fen > 0 then o.minutes * 30 else o.minutes * 60 end),
      o.paid_at
    from orders o where o.order_no like ${`S${o.tag}-%`} and o.kind = 'consume'`);
  await db.execute(sql`analyze orders`);
  await db.execute(sql`analyze device_sessions`);
}
