/**
 * The bench registry: `bench/run.ts` runs every module in `bench/sections/` (sorted by file name); each exports
 * `default async function (ctx: BenchContext): Promise<BenchRow[]>`. Rows end up in one printed table and in
 * `bench/results.json`.
 */
export interface BenchRow {
  /** Section, e.g. 'startup', 'sign-in', 'wallet-pay'. */
  section: string;
  /** What was measured, e.g. 'cold start, empty DB'. */
  name: string;
  /** Database: 'pglite' or 'postgres'. */
  db?: string;
  requests?: number;
  /** Requests per second. */
  rps?: number;
  p50_ms?: number;
  p99_ms?: number;
  /** Single duration (e.g. cold start). */
  ms?: number;
  /** Lighthouse: performance score (0-100), paint metrics, blocking time, layout shift, bytes transferred. */
  score?: number;
  fcp_ms?: number;
  lcp_ms?: number;
  tbt_ms?: number;
  cls?: number;
  transfer_bytes?: number;
  /** Free text (errors, invariant checks). */
  note?: string;
}

export interface BenchContext {
  /** Repository root. */
  root: string;
  /** A scratch directory for this run (removed afterwards). */
  workDir: string;
  /** PostgreSQL admin URL when BENCH_DATABASE_URL (or TEST_DATABASE_URL) is set; sections may also run on it. */
  postgresUrl?: string;
  /** Upper bounds every load section respects. */
  limits: { maxRequests: number; maxSeconds: number; concurrency: number };
  log(message: string): void;
}
