/**
 * Wallet pays/s with one and with two API instances on one PostgreSQL database (docs/scaling.md): each instance is
 * `server/main.ts` in its own process (what `npm start` runs), the load is spread round-robin over them as a load
 * balancer would, every request a different free device, at the run's concurrency. The ledger invariants are checked
 * after each run. PostgreSQL only (the embedded database belongs to one process). `BENCH_ONLY=instances`.
 */
import { openDatabase } from '../../server/db/client';
import { ledgerViolations } from '../../tests/server/money/invariants';
import {
  payFixtures,
  startInstance,
  walletPayRequest,
  type Instance,
} from '../../tests/server/app/instances-harness';
import { round, runHttpLoad, withScratchDatabase } from '../lib';
import type { BenchContext, BenchRow } from '../types';

const MEMBERS = 64;

async function measure(
  ctx: BenchContext,
  url: string,
  instances: Instance[],
  run: string,
): Promise<BenchRow> {
  const database = await openDatabase({ databaseUrl: url, poolSize: 2 });
  try {
    const n = ctx.limits.maxRequests;
    const fx = await payFixtures(database.db, n, MEMBERS, Math.ceil(n / MEMBERS));
    // Sent from the load worker's thread, as the wallet-pay rows' are (bench/lib.ts, runHttpLoad).
    const r = await runHttpLoad(
      (i) =>
        walletPayRequest(
          instances[i % instances.length]!.url,
          fx,
          fx.deviceIds[i]!,
          fx.cookies[i % MEMBERS]!,
          `${run}-${i}`,
        ),
      { ...ctx.limits, maxRequests: n },
    );
    // Let the simulators acknowledge what they were sent, then check the whole ledger.
    let violations: string[] = [];
    for (let i = 0; i < 100; i++) {
      violations = await ledgerViolations(database.db, { settled: true });
      if (violations.length === 0) break;
      await new Promise((ok) => setTimeout(ok, 200));
    }
    return {
      section: 'instances',
      name: `POST /backend/user/pay (wallet), ${instances.length} instance${instances.length > 1 ? 's' : ''} (server/main.ts), concurrency ${ctx.limits.concurrency}`,
      db: 'postgres',
      requests: r.requests,
      rps: round(r.rps),
      p50_ms: round(r.p50_ms),
      p99_ms: round(r.p99_ms),
      note:
        `${r.errors ? `${r.errors} errors ${JSON.stringify(r.statuses)}` : 'all 201'}; ` +
        (violations.length === 0
          ? 'invariants ok'
          : `INVARIANTS VIOLATED (${violations.length}): ${violations[0]}`),
    };
  } finally {
    await database.close();
  }
}

export default async function instancesSection(ctx: BenchContext): Promise<BenchRow[]> {
  if (!ctx.postgresUrl) {
    return [
      { section: 'instances', name: 'PostgreSQL', db: 'postgres', note: 'skipped: set BENCH_DATABASE_URL' },
    ];
  }
  return withScratchDatabase(ctx.postgresUrl, async (url) => {
    const started: Instance[] = [];
    try {
      ctx.log('instances: one instance');
      started.push(await startInstance('one', url));
      const one = await measure(ctx, url, started, 'one');
      ctx.log('instances: two instances');
      started.push(await startInstance('two', url));
      const two = await measure(ctx, url, started, 'two');
      return [one, two];
    } finally {
      await Promise.all(started.map((s) => s.stop()));
    }
  });
}
