/**
 * `npm run bench`: runs every section in bench/sections (file name order), prints one table and writes
 * bench/results.json. Loopback only; each load section is bounded (BENCH_MAX_REQUESTS, default 2000;
 * BENCH_MAX_SECONDS, default 10; BENCH_CONCURRENCY, default 16). BENCH_ONLY=sign-in,startup picks sections;
 * BENCH_DATABASE_URL (or TEST_DATABASE_URL) names the PostgreSQL server for the PostgreSQL rows; without one, a
 * throwaway loopback server is started from Debian's binaries (scripts/pg-server.sh) when they are installed.
 * BENCH_PG=off leaves PostgreSQL out (quicker comparisons on the embedded database). BENCH_PROFILE=<dir> writes a
 * CPU profile of each load run; BENCH_STALLS=<ms> prints the call stack of each stall of the app's pay rounds longer
 * than that (bench/lib.ts, watchStalls); BENCH_FTRACE=<ms> records the kernel's scheduler events of those rounds with
 * markers for GCs and stalls longer than that (root; read with `npx tsx bench/sched-trace.ts`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startPgServer, stopPgServer } from '../scripts/pg-scratch';
import { SERVER_NODE_FLAGS } from '../scripts/server-command';
import type { BenchContext, BenchRow } from './types';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const sectionsDir = path.join(root, 'bench', 'sections');

function table(rows: BenchRow[]): string {
  const cols: (keyof BenchRow)[] = [
    'section',
    'name',
    'db',
    'ms',
    'requests',
    'rps',
    'p50_ms',
    'p99_ms',
    'score',
    'fcp_ms',
    'lcp_ms',
    'tbt_ms',
    'cls',
    'transfer_bytes',
    'note',
  ];
  const used = cols.filter((c) => rows.some((r) => r[c] !== undefined));
  const cells = rows.map((r) => used.map((c) => (r[c] === undefined ? '' : String(r[c]))));
  const widths = used.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i]!.length)));
  const line = (vals: string[]) => '| ' + vals.map((v, i) => v.padEnd(widths[i]!)).join(' | ') + ' |';
  return [
    line(used as string[]),
    '|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|',
    ...cells.map(line),
  ].join('\n');
}

const BENCH_PG_PORT = '55439';

/** A loopback PostgreSQL for the PostgreSQL rows, when none is named and the server binaries are there. */
function startOwnPostgres(): string | undefined {
  const url = startPgServer(BENCH_PG_PORT);
  if (!url) console.error('[bench] no PostgreSQL server binaries: PostgreSQL rows skipped');
  return url;
}

function stopOwnPostgres(): void {
  stopPgServer(BENCH_PG_PORT);
}

async function main() {
  const missing = SERVER_NODE_FLAGS.filter((f) => !process.execArgv.includes(f));
  if (missing.length > 0) {
    console.error(
      `[bench] without the server's Node flags (${missing.join(' ')}): run it with \`npm run bench\``,
    );
  }
  const pgOff = process.env.BENCH_PG === 'off';
  const namedPg = pgOff
    ? undefined
    : process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || undefined;
  const ownPg = namedPg || pgOff ? undefined : startOwnPostgres();
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'scango-bench-'));
  const only = process.env.BENCH_ONLY?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const ctx: BenchContext = {
    root,
    workDir,
    postgresUrl: namedPg ?? ownPg,
    limits: {
      maxRequests: Number(process.env.BENCH_MAX_REQUESTS ?? 2000),
      maxSeconds: Number(process.env.BENCH_MAX_SECONDS ?? 10),
      concurrency: Number(process.env.BENCH_CONCURRENCY ?? 16),
    },
    log: (m) => console.error(`[bench] ${m}`),
  };
  const files = fs
    .readdirSync(sectionsDir)
    .filter((f) => /\.ts$/.test(f) && !f.endsWith('.d.ts'))
    .sort()
    .filter((f) => !only || only.some((o) => f.includes(o)));
  const rows: BenchRow[] = [];
  try {
    for (const f of files) {
      const mod = (await import(pathToFileURL(path.join(sectionsDir, f)).href)) as {
        default: (c: BenchContext) => Promise<BenchRow[]>;
      };
      try {
        rows.push(...(await mod.default(ctx)));
      } catch (err) {
        console.error(`[bench] section ${f} failed:`, err);
        rows.push({
          section: f.replace(/\.ts$/, ''),
          name: 'failed',
          note: String((err as Error).message ?? err).slice(0, 200),
        });
      }
    }
  } finally {
    fs.rmSync(workDir, { recursive: true, force: true });
    if (ownPg) stopOwnPostgres();
  }
  console.log(table(rows));
  // BENCH_ONLY runs some sections: the other sections' rows of the last full run are kept.
  const resultsFile = path.join(root, 'bench', 'results.json');
  // A section that produced rows for one database only keeps its rows of the other.
  const ran = new Set(rows.map((r) => `${r.section}/${r.db ?? ''}`));
  const kept: BenchRow[] =
    only && fs.existsSync(resultsFile)
      ? ((JSON.parse(fs.readFileSync(resultsFile, 'utf8')) as { rows?: BenchRow[] }).rows ?? []).filter(
          (r) => !ran.has(`${r.section}/${r.db ?? ''}`),
        )
      : [];
  const out = {
    generated_at: new Date().toISOString(),
    machine: {
      cpus: os.cpus().length,
      cpu: os.cpus()[0]?.model ?? '',
      node: process.version,
      // `npm run bench` runs with the server's flags (scripts/server-command.ts): its wallet-pay rows serve from here.
      node_flags: process.execArgv.join(' '),
      platform: process.platform,
    },
    limits: ctx.limits,
    rows: [...kept, ...rows],
  };
  fs.writeFileSync(resultsFile, JSON.stringify(out, null, 2) + '\n');
  console.error('[bench] wrote bench/results.json');
  // Servers started in-process may leave timers (device simulator); the run is over.
  process.exit(rows.some((r) => r.name === 'failed') ? 1 : 0);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
