/**
 * A small world whose report figures are computed by hand in reports.test.ts: two merchants, three local days
 * (2026-11-01..03 in Asia/Shanghai, UTC+8), recharges by WeChat and in cash, wallet/WeChat/cash pays, refunds,
 * a stopped and a running session, an order closed unpaid, one out of range, and two orders one second apart
 * across local midnight. The clock stands at 2026-11-03 20:00 local.
 */
import { hashPassword } from '../../../server/auth/password';
import type { Db } from '../../../server/db/client';
import {
  accounts,
  device_sessions,
  devices,
  members,
  merchants,
  orders,
  venues,
} from '../../../server/db/schema';
import { createTestApp, type TestApp } from '../test-app';

export const NOW = new Date('2026-11-03T12:00:00Z');
/** A local time in Asia/Shanghai as a Date. */
export const local = (s: string) => new Date(`${s}+08:00`);

export interface World {
  t: TestApp;
  /** Merchant 2 and its ids (merchant 1 is the demo merchant: venues 1-2, devices 1-6). */
  m2: { merchant: number; venue: number; device: number };
  employee: number;
  emp2: number;
}

type OrderSeed = Partial<typeof orders.$inferInsert> &
  Pick<typeof orders.$inferInsert, 'kind' | 'method' | 'status' | 'amount_fen' | 'merchant_id'>;
type SessionSeed = {
  status: 'running' | 'ended' | 'stopped' | 'failed';
  minutes: number;
  started?: string;
  ended?: string;
};

let n = 0;
async function order(db: Db, paid: string, o: OrderSeed, s?: SessionSeed) {
  const [row] = await db
    .insert(orders)
    .values({ order_no: `T${++n}`, paid_at: local(paid), created_at: local(paid), ...o })
    .returning();
  if (s && o.device_id) {
    const started = s.started ? local(s.started) : null;
    await db.insert(device_sessions).values({
      order_id: row!.id,
      device_id: o.device_id,
      minutes: s.minutes,
      status: s.status,
      started_at: started,
      ends_at: started && new Date(started.getTime() + s.minutes * 60_000),
      ended_at: s.ended ? local(s.ended) : null,
      created_at: local(paid),
    });
  }
}

export async function createWorld(): Promise<World> {
  const t = await createTestApp({ deps: { now: () => NOW } });
  const db = t.deps.db;
  const hash = await hashPassword('demo1234');
  const [m2] = await db.insert(merchants).values({ name: '第二商户' }).returning();
  const [v3] = await db
    .insert(venues)
    .values({ merchant_id: m2!.id, name: '二号"场",B', address: '二号路' })
    .returning();
  const [d7] = await db
    .insert(devices)
    .values({ merchant_id: m2!.id, venue_id: v3!.id, product_id: 1, name: 'M2 设备,1', serial: 'M2-0001' })
    .returning();
  const staff = await db
    .insert(accounts)
    .values([
      { username: 'emp2', name: '李,"四"', role: 'employee', level: 4, merchant_id: 1, password_hash: hash },
      {
        username: 'merchant2',
        name: '二老板',
        role: 'merchant',
        level: 2,
        merchant_id: m2!.id,
        password_hash: hash,
      },
      {
        username: 'emp-m2',
        name: '二店员',
        role: 'employee',
        level: 4,
        merchant_id: m2!.id,
        password_hash: hash,
      },
    ])
    .returning();
  const [emp2, , empM2] = staff;
  const employee = (await db.select().from(accounts)).find((a) => a.username === 'employee')!.id;
  const [member] = await db.insert(members).values({ openid: 'report-member', nickname: '小明' }).returning();
  const mem = member!.id;
  const m1 = 1;
  // ---- recharges
  await order(db, '2026-11-01T10:00:00', { kind: 'recharge', method: 'wechat', status: 'paid', amount_fen: 5000, bonus_fen: 500, merchant_id: m1, member_id: mem }); // prettier-ignore
  await order(db, '2026-11-01T23:59:59', { kind: 'recharge', method: 'cash', status: 'paid', amount_fen: 10000, bonus_fen: 1500, merchant_id: m1, member_id: mem, operator_account_id: employee }); // prettier-ignore
  await order(db, '2026-11-02T00:00:00', { kind: 'recharge', method: 'cash', status: 'paid', amount_fen: 2000, merchant_id: m1, member_id: mem, operator_account_id: emp2!.id }); // prettier-ignore
  await order(db, '2026-11-03T09:00:00', { kind: 'recharge', method: 'wechat', status: 'refunded', amount_fen: 3000, refunded_fen: 3000, merchant_id: m1, member_id: mem }); // prettier-ignore
  await order(db, '2026-11-02T09:00:00', { kind: 'recharge', method: 'wechat', status: 'pending', amount_fen: 4000, merchant_id: m1, member_id: mem, paid_at: null }); // prettier-ignore
  await order(db, '2026-11-02T10:00:00', { kind: 'recharge', method: 'cash', status: 'paid', amount_fen: 5000, merchant_id: m2!.id, member_id: mem, operator_account_id: empM2!.id }); // prettier-ignore
  // ---- consumption (venue 1: devices 1-3, venue 2: devices 4-6)
  const use = (venue_id: number, device_id: number, method: 'wallet' | 'wechat' | 'cash', amount_fen: number, more: Partial<OrderSeed> = {}) =>
    ({ kind: 'consume', method, status: 'completed', amount_fen, merchant_id: m1, venue_id, device_id, member_id: mem, ...more }) as const; // prettier-ignore
  await order(db, '2026-11-01T12:00:00', use(1, 1, 'wallet', 200), { status: 'ended', minutes: 30, started: '2026-11-01T12:00:05', ended: '2026-11-01T12:30:09' }); // prettier-ignore
  await order(db, '2026-11-02T08:00:00', use(1, 1, 'wechat', 350, { status: 'refunded', refunded_fen: 260 }), { status: 'stopped', minutes: 60, started: '2026-11-02T08:00:00', ended: '2026-11-02T08:15:20' }); // prettier-ignore
  await order(db, '2026-11-02T14:00:00', use(2, 4, 'cash', 600, { status: 'refunded', refunded_fen: 290, operator_account_id: employee, member_id: null }), { status: 'stopped', minutes: 120, started: '2026-11-02T14:00:00', ended: '2026-11-02T15:00:40' }); // prettier-ignore
  await order(db, '2026-11-03T10:00:00', use(1, 2, 'wallet', 200, { bonus_fen: 50 }), { status: 'ended', minutes: 30, started: '2026-11-03T10:00:01', ended: '2026-11-03T10:31:00' }); // prettier-ignore
  await order(db, '2026-11-03T11:00:00', use(1, 3, 'wallet', 350, { status: 'refunded', refunded_fen: 350 }), { status: 'failed', minutes: 60, ended: '2026-11-03T11:00:30' }); // prettier-ignore
  await order(db, '2026-11-03T12:00:00', use(2, 5, 'wechat', 200, { status: 'closed', paid_at: null })); // prettier-ignore
  await order(db, '2026-11-01T23:30:00', use(2, 4, 'cash', 200, { operator_account_id: emp2!.id, member_id: null }), { status: 'ended', minutes: 30, started: '2026-11-01T23:30:00', ended: '2026-11-02T00:00:00' }); // prettier-ignore
  await order(db, '2026-10-31T10:00:00', use(1, 2, 'wallet', 200), { status: 'ended', minutes: 30, started: '2026-10-31T10:00:00', ended: '2026-10-31T10:30:00' }); // prettier-ignore
  await order(db, '2026-11-03T19:30:00', use(2, 6, 'wallet', 350, { status: 'started' }), { status: 'running', minutes: 60, started: '2026-11-03T19:30:00' }); // prettier-ignore
  await order(db, '2026-11-02T11:00:00', { ...use(v3!.id, d7!.id, 'wechat', 500), merchant_id: m2!.id }, { status: 'ended', minutes: 60, started: '2026-11-02T11:00:00', ended: '2026-11-02T12:00:00' }); // prettier-ignore
  // A free service start by the employee: the device is used, no money moves (no revenue, no cash).
  await order(db, '2026-11-03T08:00:00', { ...use(2, 5, 'cash', 1), kind: 'service', method: 'free', amount_fen: 0, operator_account_id: employee, member_id: null }, { status: 'ended', minutes: 30, started: '2026-11-03T08:00:00', ended: '2026-11-03T08:30:00' }); // prettier-ignore
  return { t, m2: { merchant: m2!.id, venue: v3!.id, device: d7!.id }, employee, emp2: emp2!.id };
}
