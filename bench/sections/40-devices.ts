/**
 * The device list of a merchant with 2,000 devices (added through the API, ten batches of 200): pages across the
 * whole list, and a search with a venue filter. Latency of one request at a time (the p99 the list must keep under
 * 100 ms on the embedded DB), then under the run's concurrency.
 */
import path from 'node:path';
import { startServer } from '../../server/start';
import type { BenchContext, BenchRow } from '../types';
import { round, runLoad, withScratchDatabase } from '../lib';

const DEVICES = 2000;

async function json(url: string, init: RequestInit = {}): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, init);
  return { status: res.status, body: await res.json() };
}

async function devicesList(
  ctx: BenchContext,
  db: 'pglite' | 'postgres',
  databaseUrl?: string,
): Promise<BenchRow[]> {
  const server = await startServer(
    {
      PORT: 0,
      HOST: '127.0.0.1',
      DATA_DIR: path.join(ctx.workDir, `devices-${db}`),
      DATABASE_URL: databaseUrl ?? '',
      WECHAT_SANDBOX: true,
      SERVE_CLIENT: false,
      LOG_REQUESTS: false,
      NODE_ENV: 'production',
    },
    { quiet: true },
  );
  try {
    const base = `http://127.0.0.1:${server.port}/backend`;
    const login = await json(`${base}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'merchant', password: 'demo1234' }),
    });
    const auth = { authorization: `Bearer ${(login.body as { token: string }).token}` };
    for (let i = 0; i < DEVICES / 200; i++) {
      const added = await json(`${base}/merchant/devices`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({
          venue_id: (i % 2) + 1,
          product_id: 1,
          count: 200,
          name_prefix: `压测桩 ${i}-`,
        }),
      });
      if (added.status !== 201)
        throw new Error(`seeding devices: ${added.status} ${JSON.stringify(added.body)}`);
    }
    const pages = Math.ceil((DEVICES + 6) / 20);
    const get = (url: string) => async () => {
      const res = await fetch(url, { headers: auth });
      await res.arrayBuffer();
      return res.status;
    };
    const cases: [string, (i: number) => string][] = [
      ['GET /merchant/devices (page through 2,006 devices, 20 a page)', (i) => `page=${(i % pages) + 1}`],
      [
        'GET /merchant/devices?venue_id=2&q=压测桩 5 (search + venue filter)',
        () => `venue_id=2&q=${encodeURIComponent('压测桩 5')}`,
      ],
    ];
    const rows: BenchRow[] = [];
    for (const [name, query] of cases) {
      for (const concurrency of [1, ctx.limits.concurrency]) {
        const r = await runLoad((i) => get(`${base}/merchant/devices?${query(i)}`)(), {
          ...ctx.limits,
          concurrency,
        });
        rows.push({
          section: 'devices',
          name: `${name}, concurrency ${concurrency}`,
          db,
          requests: r.requests,
          rps: round(r.rps),
          p50_ms: round(r.p50_ms),
          p99_ms: round(r.p99_ms),
          note: r.errors ? `${r.errors} errors ${JSON.stringify(r.statuses)}` : 'all 200',
        });
      }
    }
    return rows;
  } finally {
    await server.close();
  }
}

export default async function devicesSection(ctx: BenchContext): Promise<BenchRow[]> {
  ctx.log('devices: embedded DB, 2,000 devices');
  const rows = await devicesList(ctx, 'pglite');
  if (ctx.postgresUrl) {
    ctx.log('devices: PostgreSQL, 2,000 devices');
    rows.push(...(await withScratchDatabase(ctx.postgresUrl, (url) => devicesList(ctx, 'postgres', url))));
  }
  return rows;
}
