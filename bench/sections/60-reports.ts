/**
 * Reports on a year of one merchant's data: 2,000 devices and 1,000,000 orders (consumption with sessions, every
 * 10th a recharge) written by generate_series (scripts/report-sample-data.ts), then each report through the real
 * app (bearer token, scoping, SQL, JSON) for the last 30 days and for the whole year, p50/p99, on the embedded DB
 * and on PostgreSQL. Target: 30 days at most 300 ms p99 on PostgreSQL. BENCH_REPORT_ORDERS changes the size.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { createApp } from '../../server/app';
import type { AppDeps } from '../../server/context';
import { openDatabase, type Database } from '../../server/db/client';
import { accounts } from '../../server/db/schema';
import { parseEnv } from '../../server/env';
import { ensureBaseData, seedDemo } from '../../server/seed';
import { REPORT_KINDS, addDays } from '../../src/domain/reports.schema';
import { seedSampleOrders } from '../../scripts/report-sample-data';
import { rollUpReports } from '../../server/services/report-rollup';
import type { BenchContext, BenchRow } from '../types';
import { percentile, round, withScratchDatabase } from '../lib';

const ORDERS = Number(process.env.BENCH_REPORT_ORDERS ?? 1_000_000);
const DEVICES = 2000;

async function fill(db: Database['db']) {
  await ensureBaseData(db);
  await seedDemo(db);
  // 2,000 devices in the demo merchant's two venues (6 are there already).
  await db.execute(sql`
    insert into devices (merchant_id, venue_id, product_id, name, serial)
    select 1, 1 + g % 2, 1, '压测设备 ' || g, 'RPT-' || g from generate_series(1, ${DEVICES - 6}::int) g`);
  const [employee] = await db.select().from(accounts).where(eq(accounts.username, 'employee'));
  await seedSampleOrders(db, {
    merchantId: 1,
    employeeId: employee!.id,
    orders: ORDERS,
    days: 365,
    end: new Date(),
    tag: 'bench',
  });
}

/** The machine is shared: the load average goes into each row's note. */
const load = () =>
  `load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`;

/** BENCH_REPORT_DBS=postgres skips the embedded database (its year of data takes ten minutes to seed). */
const DBS = (process.env.BENCH_REPORT_DBS ?? 'pglite,postgres').split(',');

async function measureDb(
  kind: 'pglite' | 'postgres',
  database: Database,
  ctx: BenchContext,
): Promise<BenchRow[]> {
  const t0 = performance.now();
  await fill(database.db);
  const seedMs = performance.now() - t0;
  ctx.log(`reports: ${ORDERS} orders seeded on ${kind} in ${round(seedMs / 1000)} s`);
  const env = parseEnv(
    { NODE_ENV: 'test', SERVE_CLIENT: false, LOG_REQUESTS: false, DATA_DIR: 'memory://' },
    {},
  );
  const deps: AppDeps = { db: database.db, env, now: () => new Date(), dbKind: database.kind };
  const app = createApp(deps);
  const login = await app.request('/backend/auth/login', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'merchant', password: 'demo1234' }),
  });
  const { token } = (await login.json()) as { token: string };
  // The daily rollup job, as the server runs it: every closed day summed once (today stays live).
  const r0 = performance.now();
  const rolled = await rollUpReports(database.db, env.TZ, new Date());
  const rollMs = performance.now() - r0;
  ctx.log(`reports: ${rolled.rolled.length} days rolled up on ${kind} in ${round(rollMs / 1000)} s`);
  const today = ((await (await app.request('/backend/daily/recharge', { headers: { authorization: `Bearer ${token}` } })).json()) as { today: string }).today; // prettier-ignore
  const rows: BenchRow[] = [
    {
      section: 'reports',
      name: `seed ${ORDERS} orders, ${DEVICES} devices, 365 days`,
      db: kind,
      ms: round(seedMs, 0),
    },
    {
      section: 'reports',
      name: `roll up ${rolled.rolled.length} closed days (first run)`,
      db: kind,
      ms: round(rollMs, 0),
      note: load(),
    },
  ];
  const ranges = [
    { label: '30 days', from: addDays(today, -29), runs: kind === 'postgres' ? 30 : 10 },
    { label: 'a year', from: addDays(today, -364), runs: kind === 'postgres' ? 5 : 3 },
  ];
  for (const range of ranges) {
    for (const report of REPORT_KINDS) {
      const url = `/backend/reports/${report}?from=${range.from}&to=${today}`;
      const times: number[] = [];
      let note = '';
      for (let i = 0; i < range.runs + 1; i++) {
        const s = performance.now();
        const res = await app.request(url, { headers: { authorization: `Bearer ${token}` } });
        const body = (await res.json()) as { totals: Record<string, number>; rows: unknown[] };
        if (res.status !== 200) throw new Error(`${url}: ${res.status} ${JSON.stringify(body)}`);
        // The first run warms caches and plans; it is not counted.
        if (i > 0) times.push(performance.now() - s);
        note = `rows ${body.rows.length}; ${load()}`;
      }
      times.sort((a, b) => a - b);
      rows.push({
        section: 'reports',
        name: `${report}, ${range.label}`,
        db: kind,
        requests: times.length,
        p50_ms: round(percentile(times, 50)),
        p99_ms: round(percentile(times, 99)),
        note,
      });
    }
  }
  return rows;
}

export default async function reports(ctx: BenchContext): Promise<BenchRow[]> {
  const out: BenchRow[] = [];
  if (DBS.includes('pglite')) {
    const dir = path.join(ctx.workDir, 'reports-pglite');
    fs.mkdirSync(dir, { recursive: true });
    const lite = await openDatabase({ dataDir: dir });
    try {
      out.push(...(await measureDb('pglite', lite, ctx)));
    } finally {
      await lite.close();
    }
  }
  if (ctx.postgresUrl && DBS.includes('postgres')) {
    out.push(
      ...(await withScratchDatabase(ctx.postgresUrl, async (url) => {
        const pg = await openDatabase({ databaseUrl: url });
        try {
          return await measureDb('postgres', pg, ctx);
        } finally {
          await pg.close();
        }
      })),
    );
  }
  return out;
}
