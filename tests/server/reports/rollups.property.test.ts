/**
 * The daily rollups never disagree with the orders (docs/decisions.md D21), property-based: a random world of
 * recharges, pays, free starts, refunds and sessions (ended, stopped, failed, starting, running past midnight)
 * across two merchants and five local days, with orders one second either side of local midnight (TZ
 * Asia/Shanghai). After the rollup job, after random late refunds of rolled days (the trigger marks them stale) and
 * after rolling again, every report for several scopes answers exactly what the direct computation from the orders
 * answers. Runs on PGlite and, with TEST_DATABASE_URL, on PostgreSQL.
 */
import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database, Db } from '../../../server/db/client';
import { accounts, device_sessions, devices, merchants, orders, venues } from '../../../server/db/schema';
import { buildReport } from '../../../server/routes/reports/reports.build';
import type { ReportScope } from '../../../server/routes/reports/reports.source';
import { withRollups } from '../../../server/routes/reports/reports.split';
import { rollUpReports } from '../../../server/services/report-rollup';
import { ensureBaseData, seedDemo } from '../../../server/seed';
import { REPORT_KINDS, addDays } from '../../../src/domain/reports.schema';
import { createTestDb } from '../test-db';

const TZ = 'Asia/Shanghai';
/** 20:00 local on 2026-11-03. */
const NOW = new Date('2026-11-03T12:00:00Z');
const FIRST = '2026-10-30';
const LAST = '2026-11-03';

let database: Database;
let db: Db;
/** [merchant, venue, device][] and the staff accounts. */
let places: [number, number, number][];
let staff: number[];

beforeAll(async () => {
  database = await createTestDb();
  db = database.db;
  await ensureBaseData(db);
  await seedDemo(db);
  const [m2] = await db.insert(merchants).values({ name: '第二商户' }).returning();
  const [v3] = await db
    .insert(venues)
    .values({ merchant_id: m2!.id, name: '二号场', address: '路' })
    .returning();
  const [d7] = await db
    .insert(devices)
    .values({ merchant_id: m2!.id, venue_id: v3!.id, product_id: 1, name: 'M2', serial: 'RU-M2' })
    .returning();
  const devs = await db.select().from(devices);
  places = devs.map((d) => [d.merchant_id, d.venue_id!, d.id]);
  expect(places.find((p) => p[2] === d7!.id)).toBeTruthy();
  staff = (await db.select().from(accounts)).filter((a) => a.merchant_id === 1).map((a) => a.id);
}, 60_000);
afterAll(async () => database?.close());

const orderArb = fc.record({
  day: fc.integer({ min: 0, max: 4 }),
  // Seconds after local midnight, often right at either edge of the day.
  second: fc.oneof(fc.constantFrom(0, 1, 86_399), fc.integer({ min: 0, max: 86_399 })),
  kind: fc.constantFrom('recharge', 'consume', 'consume', 'service'),
  method: fc.constantFrom('wallet', 'wechat', 'cash'),
  status: fc.constantFrom('paid', 'started', 'completed', 'refunded', 'pending', 'closed', 'failed'),
  amount: fc.integer({ min: 1, max: 9_999 }),
  bonusPart: fc.integer({ min: 0, max: 3 }),
  refundPart: fc.integer({ min: 0, max: 4 }),
  place: fc.nat(20),
  operator: fc.option(fc.nat(5), { nil: null }),
  session: fc.option(fc.constantFrom('ended', 'stopped', 'failed', 'starting', 'running'), { nil: null }),
  minutes: fc.constantFrom(1, 30, 90, 600, 3000),
  ranSeconds: fc.integer({ min: 0, max: 200_000 }),
});
type OrderArb = typeof orderArb extends fc.Arbitrary<infer T> ? T : never;

let serial = 0;
async function insertWorld(list: OrderArb[]) {
  const active = new Set<number>();
  for (const o of list) {
    const [merchant_id, venue_id, device_id] = places[o.place % places.length]!;
    const paid = new Date(Date.parse(`${addDays(FIRST, o.day)}T00:00:00+08:00`) + o.second * 1000);
    const service = o.kind === 'service';
    const amount = service ? 0 : o.amount;
    const [row] = await db
      .insert(orders)
      .values({
        order_no: `RU${++serial}`,
        kind: o.kind as 'recharge' | 'consume' | 'service',
        method: service ? 'free' : o.kind === 'recharge' && o.method === 'wallet' ? 'wechat' : o.method,
        status: o.status as 'paid',
        merchant_id,
        venue_id: o.kind === 'recharge' ? null : venue_id,
        device_id: o.kind === 'recharge' ? null : device_id,
        operator_account_id: o.operator === null ? null : staff[o.operator % staff.length]!,
        amount_fen: amount,
        bonus_fen: Math.floor((amount * o.bonusPart) / 4),
        refunded_fen: Math.floor((amount * o.refundPart) / 4),
        paid_at: o.status === 'pending' || o.status === 'closed' ? null : paid,
        created_at: paid,
      })
      .returning();
    if (o.kind === 'recharge' || o.session === null) continue;
    // One starting or running session per device at most (a unique index says so).
    const live = o.session === 'starting' || o.session === 'running';
    const status = live && active.has(device_id) ? 'ended' : o.session;
    if (status === 'starting' || status === 'running') active.add(device_id);
    const started = status === 'starting' ? null : new Date(paid.getTime() + 5_000);
    const ended =
      status === 'stopped' || status === 'failed' ? new Date(paid.getTime() + o.ranSeconds * 1000) : null;
    await db.insert(device_sessions).values({
      order_id: row!.id,
      device_id,
      minutes: o.minutes,
      status: status as 'ended',
      started_at: started,
      ends_at: started && new Date(started.getTime() + o.minutes * 60_000),
      ended_at: status === 'ended' && started ? new Date(started.getTime() + o.minutes * 60_000) : ended,
      created_at: paid,
    });
  }
}

const SCOPES: Omit<ReportScope, 'tz' | 'now'>[] = [
  { merchantId: 1, venueId: null, operatorId: null, from: FIRST, to: LAST },
  { merchantId: null, venueId: null, operatorId: null, from: FIRST, to: LAST },
  { merchantId: 1, venueId: 2, operatorId: null, from: '2026-10-31', to: '2026-11-02' },
  { merchantId: 1, venueId: null, operatorId: -1, from: '2026-11-01', to: LAST },
];

/** Every report of every scope: from the rollups (where fresh) and straight from the orders, equal. */
async function expectRollupsEqualOrders(phase: string) {
  for (const base of SCOPES) {
    const s: ReportScope = { ...base, operatorId: base.operatorId && staff.at(-1)!, tz: TZ, now: NOW };
    const split = await withRollups(db, s);
    for (const kind of REPORT_KINDS) {
      const direct = await buildReport(kind, db, s);
      const rolled = await buildReport(kind, db, split);
      expect(rolled, `${phase}: ${kind} ${JSON.stringify(split.split)}`).toEqual(direct);
    }
  }
}

const freshDays = async () =>
  (
    (await db.execute(
      sql`select count(*)::int as n from report_days where fresh and tz = ${TZ}`,
    )) as unknown as {
      rows: { n: number }[];
    }
  ).rows[0]!.n;

describe('daily rollups', () => {
  it('equal the orders after rolling, after late refunds, and after rolling again', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(orderArb, { minLength: 1, maxLength: 30 }),
        fc.array(fc.nat(), { maxLength: 4 }),
        async (list, refunds) => {
          await db.execute(
            sql`delete from device_sessions where order_id in (select id from orders where order_no like 'RU%')`,
          );
          await db.execute(sql`delete from orders where order_no like 'RU%'`);
          for (const t of ['report_days', 'report_money_days', 'report_device_days']) {
            await db.execute(sql`delete from ${sql.identifier(t)}`);
          }
          await insertWorld(list);
          const first = await rollUpReports(db, TZ, NOW, { batchDays: 2 });
          // Only closed days roll: a world whose orders all fall on today (NOW's local day) has nothing to roll.
          if (list.some((o) => o.day < 4)) {
            expect(first.rolled.length + first.unsettled.length).toBeGreaterThan(0);
          }
          expect(await freshDays()).toBe(first.rolled.length);
          expect((await rollUpReports(db, TZ, NOW)).rolled).toEqual([]);
          await expectRollupsEqualOrders('rolled');
          // Late refunds of orders of closed days: the trigger marks their days stale, the reports stay exact.
          const ids = (await db.select({ id: orders.id }).from(orders)).map((r) => r.id);
          for (const pick of refunds) {
            const id = ids[pick % ids.length]!;
            await db.execute(sql`update orders set refunded_fen = amount_fen, status = 'refunded'
              where id = ${id} and status in ('paid', 'started', 'completed', 'refunded')`);
          }
          await expectRollupsEqualOrders('refunded');
          await rollUpReports(db, TZ, NOW);
          await expectRollupsEqualOrders('rolled again');
        },
      ),
      { numRuns: 8 },
    );
  }, 600_000);
});
