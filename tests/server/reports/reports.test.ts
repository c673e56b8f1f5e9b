/**
 * Every report against the hand-computed world of report-world.ts (figures worked out in the comments), on PGlite
 * and, with TEST_DATABASE_URL, on PostgreSQL: the same numbers on both.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DashboardSummary } from '../../../src/domain/dashboard';
import type {
  CashReport,
  ConsumptionReport,
  DeviceUsageReport,
  RechargeReport,
} from '../../../src/domain/reports.schema';
import { bearer } from '../test-app';
import { rollUpReports } from '../../../server/services/report-rollup';
import { createWorld, NOW, type World } from './report-world';

let w: World;
const tokens = new Map<string, string>();
beforeAll(async () => {
  w = await createWorld();
  for (const u of ['admin', 'merchant', 'employee', 'emp2', 'merchant2']) tokens.set(u, await w.t.login(u));
}, 60_000);
afterAll(async () => w?.t.close());

async function get<T>(path: string, user = 'merchant'): Promise<T> {
  const { status, body } = await w.t.json<T>(`/backend${path}`, bearer(tokens.get(user)!));
  expect(status, JSON.stringify(body)).toBe(200);
  return body;
}
const RANGE = 'from=2026-11-01&to=2026-11-03';

/** Sum of one field over rows (the totals must equal it). */
const sum = <R>(rows: R[], k: keyof R) => rows.reduce((a, r) => a + (r[k] as number), 0);

describe('recharge report', () => {
  it('splits WeChat and cash, paid and bonus apart; pending never counts; days are local days', async () => {
    const r = await get<RechargeReport>(`/reports/recharge?${RANGE}`);
    expect(r).toMatchObject({ from: '2026-11-01', to: '2026-11-03', today: '2026-11-03', merchant_id: 1 });
    expect(r.rows).toEqual([
      { method: 'wechat', count: 2, paid_fen: 8000, bonus_fen: 500, refund_fen: 3000, net_fen: 5000 },
      { method: 'cash', count: 2, paid_fen: 12000, bonus_fen: 1500, refund_fen: 0, net_fen: 12000 },
    ]);
    expect(r.totals).toEqual({
      count: 4,
      paid_fen: 20000,
      bonus_fen: 2000,
      refund_fen: 3000,
      net_fen: 17000,
    });
    // 23:59:59 on the 1st and 00:00:00 on the 2nd fall on their own local days.
    expect(r.days).toEqual([
      { date: '2026-11-01', count: 2, paid_fen: 15000, bonus_fen: 2000, refund_fen: 0, net_fen: 15000, wechat_fen: 5000, cash_fen: 10000 }, // prettier-ignore
      { date: '2026-11-02', count: 1, paid_fen: 2000, bonus_fen: 0, refund_fen: 0, net_fen: 2000, wechat_fen: 0, cash_fen: 2000 }, // prettier-ignore
      { date: '2026-11-03', count: 1, paid_fen: 3000, bonus_fen: 0, refund_fen: 3000, net_fen: 0, wechat_fen: 0, cash_fen: 0 }, // prettier-ignore
    ]);
    const later = await get<RechargeReport>('/reports/recharge?from=2026-11-02&to=2026-11-03');
    expect(later.totals).toMatchObject({ count: 2, paid_fen: 5000 });
  });

  it('the admin sees every merchant, or one', async () => {
    const all = await get<RechargeReport>(`/reports/recharge?${RANGE}`, 'admin');
    expect(all.merchant_id).toBeNull();
    expect(all.totals).toMatchObject({ count: 5, paid_fen: 25000 });
    const two = await get<RechargeReport>(`/reports/recharge?${RANGE}&merchant_id=${w.m2.merchant}`, 'admin');
    expect(two.rows[1]).toMatchObject({ method: 'cash', count: 1, paid_fen: 5000 });
    expect(two.totals.count).toBe(1);
  });
});

describe('consumption report', () => {
  it('by venue and method, refunds apart; closed and out-of-range orders excluded', async () => {
    const r = await get<ConsumptionReport>(`/reports/consumption?${RANGE}`);
    const row = (venue_id: number, method: string, f: number[]) => ({
      venue_id,
      method,
      merchant_id: 1,
      count: f[0],
      amount_fen: f[1],
      bonus_fen: f[2],
      refund_fen: f[3],
      net_fen: f[4],
    });
    expect(r.rows).toMatchObject([
      row(1, 'wallet', [3, 750, 50, 350, 400]),
      row(1, 'wechat', [1, 350, 0, 260, 90]),
      row(2, 'cash', [2, 800, 0, 290, 510]),
      row(2, 'wallet', [1, 350, 0, 0, 350]),
    ]);
    expect(r.rows[0]!.venue_name).toBe('星河广场店');
    expect(r.totals).toEqual({ count: 7, amount_fen: 2250, bonus_fen: 50, refund_fen: 900, net_fen: 1350 });
    expect(r.days.map((d) => [d.date, d.count, d.net_fen, d.wallet_fen, d.wechat_fen, d.cash_fen])).toEqual([
      ['2026-11-01', 2, 400, 200, 0, 200],
      ['2026-11-02', 2, 400, 0, 90, 310],
      ['2026-11-03', 3, 550, 550, 0, 0],
    ]);
    const v2 = await get<ConsumptionReport>(`/reports/consumption?${RANGE}&venue_id=2`);
    expect(v2.totals).toEqual({ count: 3, amount_fen: 1150, bonus_fen: 0, refund_fen: 290, net_fen: 860 });
  });
});

describe('device usage report', () => {
  it('sessions, minutes used (stopped and running ones by the time they ran), revenue and utilisation', async () => {
    const r = await get<DeviceUsageReport>(`/reports/device-usage?${RANGE}`);
    expect(r.rows.map((d) => [d.device_id, d.sessions, d.minutes, d.revenue_fen, d.refund_fen, d.utilisation_bp])).toEqual([
      [1, 2, 45, 290, 260, 104], // 30 + 15 (stopped after 15:20) of 3 x 1440 minutes
      [2, 1, 30, 200, 0, 69],
      [3, 0, 0, 0, 350, 0], // never started: refunded in full
      [4, 2, 91, 510, 290, 210], // 61 (60:40 rounds to 61) + 30
      [5, 1, 30, 0, 0, 69], // a free service start (a closed order does not count)
      [6, 1, 30, 350, 0, 69], // running since 19:30, now 20:00
    ]); // prettier-ignore
    expect(r.totals).toEqual({ devices: 6, sessions: 7, minutes: 226, revenue_fen: 1350, refund_fen: 900, utilisation_bp: 87 }); // prettier-ignore
    expect(r.days.map((d) => [d.date, d.sessions, d.minutes, d.revenue_fen, d.refund_fen])).toEqual([
      ['2026-11-01', 2, 60, 400, 0],
      ['2026-11-02', 2, 76, 400, 550],
      ['2026-11-03', 3, 90, 550, 350],
    ]);
    const v1 = await get<DeviceUsageReport>(`/reports/device-usage?${RANGE}&venue_id=1`);
    expect(v1.rows.map((d) => d.device_id)).toEqual([1, 2, 3]);
  });
});

describe('cash report', () => {
  it('by day and employee: cash recharges and cash sales, refunds handed back apart', async () => {
    const r = await get<CashReport>(`/reports/cash?${RANGE}`);
    expect(r.rows.map((x) => [x.date, x.account_id, x.recharge_count, x.recharge_fen, x.sale_count, x.sale_fen, x.refund_fen, x.net_fen])).toEqual([
      ['2026-11-01', w.employee, 1, 10000, 0, 0, 0, 10000],
      ['2026-11-01', w.emp2, 0, 0, 1, 200, 0, 200],
      ['2026-11-02', w.employee, 0, 0, 1, 600, 290, 310],
      ['2026-11-02', w.emp2, 1, 2000, 0, 0, 0, 2000],
    ]); // prettier-ignore
    expect(r.rows[1]!.account_name).toBe('李,"四"');
    expect(r.totals).toEqual({ recharge_count: 2, recharge_fen: 12000, sale_count: 2, sale_fen: 800, refund_fen: 290, net_fen: 12510 }); // prettier-ignore
    expect(r.days.map((d) => d.net_fen)).toEqual([10200, 2310, 0]);
  });
});

describe('daily figures', () => {
  it('one local day, today by default; an employee sees the orders they took', async () => {
    const today = await get<RechargeReport>('/daily/recharge');
    expect(today).toMatchObject({ from: '2026-11-03', to: '2026-11-03', report: 'recharge' });
    expect(today.totals).toMatchObject({ count: 1, paid_fen: 3000, net_fen: 0 });
    const mine = await get<RechargeReport>('/daily/recharge?date=2026-11-01', 'employee');
    expect(mine.rows).toMatchObject([
      { method: 'wechat', count: 0 },
      { method: 'cash', count: 1, paid_fen: 10000 },
    ]);
    const cash = await get<CashReport>('/daily/cash?date=2026-11-02', 'employee');
    expect(cash.rows).toMatchObject([
      { account_id: w.employee, sale_fen: 600, refund_fen: 290, net_fen: 310 },
    ]);
    const other = await get<CashReport>('/daily/cash?date=2026-11-02', 'emp2');
    expect(other.rows).toMatchObject([{ account_id: w.emp2, recharge_fen: 2000 }]);
    const owner = await get<CashReport>('/daily/cash?date=2026-11-02');
    expect(owner.rows).toHaveLength(2);
  });

  it('agrees with 首页 on today', async () => {
    const dash = await get<DashboardSummary>('/dashboard');
    const consumption = await get<ConsumptionReport>('/reports/consumption');
    const recharge = await get<RechargeReport>('/daily/recharge');
    expect(dash.today.revenue_fen).toBe(consumption.totals.net_fen);
    expect(dash.today.orders).toBe(consumption.totals.count);
    expect(dash.today.recharge_fen).toBe(recharge.totals.net_fen);
    expect(dash.today.recharges).toBe(recharge.totals.count);
  });
});

describe('totals equal the sum of rows, for every report and every scope', () => {
  const kinds = ['device-usage', 'recharge', 'cash', 'consumption'] as const;
  const scopes = [
    ['merchant', ''],
    ['admin', ''],
    ['admin', '&merchant_id=2'],
    ['merchant', '&venue_id=1'],
    ['merchant2', ''],
  ] as const;
  for (const kind of kinds)
    for (const [user, extra] of scopes)
      it(`${kind} as ${user}${extra}`, async () => {
        const r = await get<{ totals: Record<string, number>; rows: Record<string, number>[]; days: Record<string, number>[] }>(`/reports/${kind}?from=2026-10-30&to=2026-11-04${extra}`, user); // prettier-ignore
        expect(r.days).toHaveLength(6);
        for (const [k, v] of Object.entries(r.totals)) {
          if (k === 'utilisation_bp' || k === 'devices') continue;
          expect(sum(r.rows, k), k).toBe(v);
          expect(sum(r.days, k), `days ${k}`).toBe(v);
        }
      });
});

describe('after the daily rollup (docs/decisions.md D21)', () => {
  it('every report answers the same hand-computed figures from the rolled days', async () => {
    const kinds = ['device-usage', 'recharge', 'cash', 'consumption'] as const;
    const users = ['merchant', 'admin', 'employee'] as const;
    const before = new Map<string, unknown>();
    for (const kind of kinds)
      for (const user of users)
        if (user !== 'employee' || kind === 'cash') before.set(`${kind}/${user}`, await reportAs(kind, user));
    const run = await rollUpReports(w.t.deps.db, w.t.deps.env.TZ, NOW);
    // The 3rd is today; every closed day from the first order's (31 Oct) is rolled.
    expect(run.rolled).toEqual(['2026-10-31', '2026-11-01', '2026-11-02']);
    for (const [key, answer] of before) {
      const [kind, user] = key.split('/') as [(typeof kinds)[number], (typeof users)[number]];
      expect(await reportAs(kind, user), key).toEqual(answer);
    }
  });
});

/** A report (the daily cash screen for the employee) over 30 Oct..3 Nov. */
const reportAs = (kind: string, user: string) =>
  user === 'employee'
    ? get(`/daily/cash?date=2026-11-02`, user)
    : get(`/reports/${kind}?from=2026-10-30&to=2026-11-03`, user);
