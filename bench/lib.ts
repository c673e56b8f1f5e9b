/** Helpers shared by bench sections: a bounded closed-loop load generator and percentiles. Loopback only. */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import fs from 'node:fs';
import path from 'node:path';
import { Session } from 'node:inspector/promises';
import { Worker } from 'node:worker_threads';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { markGc, traceRound } from './sched-trace';
import { SERVER_ARGS } from '../scripts/server-command';

/** A free loopback TCP port. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** Polls `<base>/backend/health` until it answers 200 (or throws after `timeoutMs`). */
export async function waitHealthy(base: string, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetch(`${base}/backend/health`)).status === 200) return;
    } catch {
      // not listening yet
    }
    if (performance.now() > deadline) throw new Error(`${base} not healthy within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

export const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  statuses: Record<number, number>;
  /** Every request's latency (ms), sorted: runs merge by them (`mergeLoads`). */
  latencies: number[];
}

/**
 * Runs `once(i)` from `concurrency` workers until `maxRequests` are done or `maxSeconds` have passed.
 * `once` resolves to the HTTP status; anything else than 2xx counts as an error.
 */
export async function runLoad(
  once: (i: number) => Promise<number>,
  opts: { maxRequests: number; maxSeconds: number; concurrency: number },
): Promise<LoadResult> {
  const profile = await startProfile();
  try {
    return await load(once, opts);
  } finally {
    await profile?.();
  }
}

let profiles = 0;

/**
 * BENCH_PROFILE=<dir>: a CPU profile of this process over each load run only (not its fixtures), written to
 * `<dir>/load-<n>.cpuprofile` (open it in Chrome's DevTools). Servers the section started in-process are in it.
 */
async function startProfile(): Promise<(() => Promise<void>) | undefined> {
  const dir = process.env.BENCH_PROFILE;
  if (!dir) return undefined;
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `load-${++profiles}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  };
}

async function load(
  once: (i: number) => Promise<number>,
  opts: { maxRequests: number; maxSeconds: number; concurrency: number },
): Promise<LoadResult> {
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  let next = 0;
  const started = performance.now();
  const deadline = started + opts.maxSeconds * 1000;
  const worker = async () => {
    while (next < opts.maxRequests && performance.now() < deadline) {
      const i = next++;
      const t0 = performance.now();
      let status: number;
      try {
        status = await once(i);
      } catch {
        status = 0; // connection error
      }
      latencies.push(performance.now() - t0);
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  return summarize({ latencies, statuses, seconds: (performance.now() - started) / 1000 });
}

/** What a closed loop recorded (latencies in ms, the count of each status, 0 for no answer) as a LoadResult. */
function summarize(run: {
  latencies: number[];
  statuses: Record<number, number>;
  seconds: number;
}): LoadResult {
  const latencies = [...run.latencies].sort((a, b) => a - b);
  let errors = 0;
  for (const [status, n] of Object.entries(run.statuses)) if (+status < 200 || +status >= 300) errors += n;
  return {
    requests: latencies.length,
    errors,
    seconds: run.seconds,
    rps: latencies.length / run.seconds,
    p50_ms: percentile(latencies, 50),
    p99_ms: percentile(latencies, 99),
    statuses: run.statuses,
    latencies,
  };
}

/** Several runs as one: their requests and seconds added up, percentiles over all their latencies. */
export function mergeLoads(runs: LoadResult[]): LoadResult {
  const statuses: Record<number, number> = {};
  for (const r of runs)
    for (const [k, n] of Object.entries(r.statuses)) statuses[+k] = (statuses[+k] ?? 0) + n;
  return summarize({
    latencies: runs.flatMap((r) => r.latencies),
    statuses,
    seconds: runs.reduce((t, r) => t + r.seconds, 0),
  });
}

/** Rounds of each side in `alternating` (the app and its floor). */
export const ROUNDS = 3;

/**
 * Two loads compared as a ratio (the app against its floor), run in `rounds` alternating rounds of a share of the
 * requests each (A B, B A, A B, ...), not one after the other: a slower stretch of this shared machine then falls on
 * both, instead of on whichever ran in it (docs/performance.md, "Rounds"). `run(which, from, count)` runs requests
 * `from` to `from + count - 1` of A or B; `between` runs after each (the ledger check). Answers both merged, the
 * ratio B/A of each round's throughput, and what `between` answered after each side's rounds.
 */
export async function alternating<T>(
  total: number,
  rounds: number,
  run: (which: 'a' | 'b', from: number, count: number) => Promise<LoadResult>,
  between: () => Promise<T>,
): Promise<{ a: LoadResult; b: LoadResult; ratios: number[]; checks: { a: T[]; b: T[] } }> {
  const a: LoadResult[] = [];
  const b: LoadResult[] = [];
  const checks = { a: [] as T[], b: [] as T[] };
  for (let r = 0; r < rounds; r++) {
    const from = Math.floor((total * r) / rounds);
    const count = Math.floor((total * (r + 1)) / rounds) - from;
    for (const which of r % 2 === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const)) {
      (which === 'a' ? a : b).push(await run(which, from, count));
      checks[which].push(await between());
    }
  }
  return {
    a: mergeLoads(a),
    b: mergeLoads(b),
    ratios: a.map((x, i) => b[i]!.rps / x.rps),
    checks,
  };
}

/** One HTTP request of a load run, prepared before the run starts. */
export interface HttpRequestSpec {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
}

/**
 * The closed loop of `runLoad` over HTTP, run by a worker thread (bench/load-worker.mjs) over requests prepared in
 * advance (`spec(i)` for i below `maxRequests`): the load generator's own work (fetch, its streams, its garbage)
 * no longer shares the thread of a server that runs in the bench's process, as a phone's or WeChat's never would.
 */
export async function runHttpLoad(
  spec: (i: number) => HttpRequestSpec,
  opts: { maxRequests: number; maxSeconds: number; concurrency: number },
): Promise<LoadResult> {
  const requests = Array.from({ length: opts.maxRequests }, (_, i) => spec(i));
  // BENCH_LOAD=inline: the same requests from this thread with fetch, as at first; BENCH_LOAD=fetch: from the worker
  // with fetch, as until the worker sent them over node:http (for comparing the ways).
  if (process.env.BENCH_LOAD === 'inline') {
    return runLoad(async (i) => {
      const { url, method, headers, body } = requests[i]!;
      const res = await fetch(url, { method, headers, body });
      await res.arrayBuffer();
      return res.status;
    }, opts);
  }
  const profile = await startProfile();
  try {
    type Run = Parameters<typeof summarize>[0];
    const run = await new Promise<Run>((resolve, reject) => {
      const w = new Worker(new URL('./load-worker.mjs', import.meta.url), {
        workerData: {
          requests,
          concurrency: opts.concurrency,
          maxSeconds: opts.maxSeconds,
          client: process.env.BENCH_LOAD === 'fetch' ? 'fetch' : 'http',
        },
      });
      w.once('message', (m: Run) => {
        resolve(m);
        void w.terminate();
      });
      w.once('error', reject);
    });
    return summarize(run);
  } finally {
    await profile?.();
  }
}

/** Scratch databases come from the helper the tests use too. */
export { withScratchDatabase } from '../scripts/pg-scratch';

export interface ServerProcess {
  port: number;
  child: ChildProcess;
  /** SIGTERM, then wait for the exit. */
  stop(): Promise<void>;
}

/**
 * `server/main.ts` (what `npm start` runs) as a child process on a free loopback port, with a fresh embedded DB in
 * `<workDir>/<name>-db` and `env` on top; resolves once it is healthy.
 */
export async function startServerProcess(
  ctx: { root: string; workDir: string },
  name: string,
  env: Record<string, string> = {},
): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, SERVER_ARGS, {
    cwd: ctx.root,
    env: {
      ...process.env,
      PORT: String(port),
      // Its own embedded MQTT broker on a free port (several servers run side by side).
      MQTT_PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: path.join(ctx.workDir, `${name}-db`),
      DATABASE_URL: '',
      LOG_REQUESTS: 'false',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // Keep the pipe flowing (a full pipe would block the server); sections may listen with on('data').
  child.stdout!.resume();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    child.kill('SIGTERM');
    await exited;
  };
  try {
    await waitHealthy(`http://127.0.0.1:${port}`, 300_000);
  } catch (err) {
    await stop();
    throw err;
  }
  return { port, child, stop };
}

/** What held up this process's thread while a load ran: its event loop's delay, its GC pauses, the CPU stolen. */
export interface Stalls {
  /** Event-loop delay (ms): how late a timer ran, whatever kept the thread. */
  loopP99: number;
  loopMax: number;
  /** The longest garbage-collection pause and all of them added up (ms). */
  gcMax: number;
  gcTotal: number;
  /** CPU time the hypervisor gave other machines while this one wanted it, over all cores (ms; Linux, else 0). */
  steal: number;
}

/** The machine's stolen CPU so far (ms, all cores), from /proc/stat's `steal` column (clock ticks of 10 ms). */
function stealMs(): number {
  try {
    const cpu = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/);
    return Number(cpu[8] ?? 0) * 10;
  } catch {
    return 0;
  }
}

/**
 * Starts watching what may stall this thread (event-loop delay, GC pauses, CPU steal); the returned function stops
 * and answers what was seen. A slow round whose stall was a GC pause or stolen CPU is the machine's, not the code's.
 */
export function watchStalls(): () => Promise<Stalls> {
  const loop = monitorEventLoopDelay({ resolution: 10 });
  const gc = { max: 0, total: 0 };
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      gc.max = Math.max(gc.max, e.duration);
      gc.total += e.duration;
      if (process.env.BENCH_FTRACE)
        markGc((e as unknown as { detail?: { kind?: number } }).detail?.kind, e.duration);
    }
  });
  obs.observe({ entryTypes: ['gc'] });
  const catcher = process.env.BENCH_STALLS ? catchStalls(Number(process.env.BENCH_STALLS) || 60) : undefined;
  const steal0 = stealMs();
  const traced = process.env.BENCH_FTRACE ? traceRound(Number(process.env.BENCH_FTRACE) || 60) : undefined;
  loop.enable();
  return async () => {
    loop.disable();
    traced?.();
    obs.disconnect();
    const caught = await catcher?.();
    for (const c of caught ?? [])
      console.error(`[bench] stall of ${c.lagMs} ms:\n    ${c.frames.join('\n    ')}`);
    return {
      loopP99: loop.percentile(99) / 1e6,
      loopMax: loop.max / 1e6,
      gcMax: gc.max,
      gcTotal: gc.total,
      steal: stealMs() - steal0,
    };
  };
}

/** One stall the catcher paused: how late the main thread was, and where it was paused (innermost first). */
interface CaughtStall {
  lagMs: number;
  frames: string[];
}

/**
 * BENCH_STALLS=<ms> (default 60): a thread that pauses this one through the inspector when it has not turned for
 * that long, and keeps the call stack it was paused in (bench/stall-worker.mjs). For finding what a stall was; it
 * changes what it watches (the debugger is enabled while it catches), so its runs are not figures to keep.
 */
function catchStalls(thresholdMs: number): () => Promise<CaughtStall[]> {
  const shared = new SharedArrayBuffer(8);
  const beat = new Float64Array(shared);
  const tick = setInterval(() => (beat[0] = Date.now()), 5);
  beat[0] = Date.now();
  const w = new Worker(new URL('./stall-worker.mjs', import.meta.url), {
    workerData: { shared, thresholdMs },
  });
  return async () => {
    clearInterval(tick);
    const caught = await new Promise<CaughtStall[]>((resolve) => {
      w.once('message', resolve);
      w.postMessage('stop');
    });
    await w.terminate();
    return caught;
  };
}
