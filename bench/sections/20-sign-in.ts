/**
 * Staff sign-in throughput on a real listening server (scrypt hashing + token insert per request): requests per
 * second with p50/p99, bounded by the run's limits, on the embedded DB and (when configured) on PostgreSQL.
 */
import path from 'node:path';
import { startServer } from '../../server/start';
import type { BenchContext, BenchRow } from '../types';
import { round, runLoad, withScratchDatabase } from '../lib';

async function signIn(ctx: BenchContext, db: 'pglite' | 'postgres', databaseUrl?: string): Promise<BenchRow> {
  const server = await startServer(
    {
      PORT: 0,
      HOST: '127.0.0.1',
      DATA_DIR: path.join(ctx.workDir, `sign-in-${db}`),
      DATABASE_URL: databaseUrl ?? '',
      WECHAT_SANDBOX: true,
      SERVE_CLIENT: false,
      LOG_REQUESTS: false,
      NODE_ENV: 'production',
    },
    { quiet: true },
  );
  try {
    const body = JSON.stringify({ username: 'admin', password: 'demo1234' });
    const url = `http://127.0.0.1:${server.port}/backend/auth/login`;
    const r = await runLoad(async () => {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      await res.arrayBuffer();
      return res.status;
    }, ctx.limits);
    return {
      section: 'sign-in',
      name: `POST /backend/auth/login, concurrency ${ctx.limits.concurrency}`,
      db,
      requests: r.requests,
      rps: round(r.rps),
      p50_ms: round(r.p50_ms),
      p99_ms: round(r.p99_ms),
      note: r.errors ? `${r.errors} errors ${JSON.stringify(r.statuses)}` : 'all 200',
    };
  } finally {
    await server.close();
  }
}

export default async function signInSection(ctx: BenchContext): Promise<BenchRow[]> {
  ctx.log('sign-in: embedded DB');
  const rows = [await signIn(ctx, 'pglite')];
  if (ctx.postgresUrl) {
    ctx.log('sign-in: PostgreSQL');
    rows.push(await withScratchDatabase(ctx.postgresUrl, (url) => signIn(ctx, 'postgres', url)));
  }
  return rows;
}
