/** Helpers shared by bench sections: a bounded closed-loop load generator and percentiles. Loopback only. */
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
}

/**
 * Runs `once(i)` from `concurrency` workers until `maxRequests` are done or `maxSeconds` have passed.
 * `once` resolves to the HTTP status; anything else than 2xx counts as an error.
 */
export async function runLoad(
  once: (i: number) => Promise<number>,
  opts: { maxRequests: number; maxSeconds: number; concurrency: number },
): Promise<LoadResult> {
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  let next = 0;
  let errors = 0;
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
      if (status < 200 || status >= 300) errors++;
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    errors,
    seconds,
    rps: latencies.length / seconds,
    p50_ms: percentile(latencies, 50),
    p99_ms: percentile(latencies, 99),
    statuses,
  };
}
