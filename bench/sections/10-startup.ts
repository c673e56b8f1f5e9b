/**
 * Cold start to healthy: spawns `server/main.ts` (a fresh Node process, client serving off) on a temp DATA_DIR and
 * polls /backend/health. Once on an empty directory (migrations + demo seed) and once more on the now seeded one.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import type { BenchContext, BenchRow } from '../types';
import { freePort, round } from '../lib';
import { SERVER_ARGS } from '../../scripts/server-command';

async function coldStart(ctx: BenchContext, dataDir: string, seed: 'demo' | 'none'): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, SERVER_ARGS, {
    cwd: ctx.root,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      SEED: seed,
      SERVE_CLIENT: 'false',
      LOG_REQUESTS: 'false',
      DATABASE_URL: '',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const deadline = started + 120_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`server exited early: ${stderr.slice(0, 500)}`);
      if (performance.now() > deadline) throw new Error('server not healthy within 120 s');
      try {
        const res = await fetch(`http://127.0.0.1:${port}/backend/health`);
        if (res.status === 200) return performance.now() - started;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

export default async function startup(ctx: BenchContext): Promise<BenchRow[]> {
  const dir = path.join(ctx.workDir, 'startup');
  const rows: BenchRow[] = [];
  ctx.log('startup: empty DATA_DIR (migrate + seed)');
  rows.push({
    section: 'startup',
    name: 'cold start to healthy, empty DB (migrate + seed)',
    db: 'pglite',
    ms: round(await coldStart(ctx, dir, 'demo')),
  });
  ctx.log('startup: seeded DATA_DIR');
  rows.push({
    section: 'startup',
    name: 'cold start to healthy, seeded DB',
    db: 'pglite',
    ms: round(await coldStart(ctx, dir, 'demo')),
  });
  ctx.log('startup: empty DATA_DIR, SEED=none');
  rows.push({
    section: 'startup',
    name: 'cold start to healthy, empty DB, SEED=none',
    db: 'pglite',
    ms: round(await coldStart(ctx, path.join(ctx.workDir, 'startup-none'), 'none')),
  });
  return rows;
}
