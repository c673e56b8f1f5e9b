/**
 * The bench's HTTP load generator on a thread of its own (bench/lib.ts, runHttpLoad): the same closed loop as
 * runLoad, over requests prepared in advance, so sending them and reading the answers never takes the server's
 * thread (the server under test may run in the bench's own process, PGlite and all). Plain JavaScript, so the
 * worker needs no TypeScript loader. Posts back the latencies (ms) and the count of each status (0: no answer).
 */
/* global fetch */
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';

const { requests, concurrency, maxSeconds } = workerData;
const latencies = [];
const statuses = {};
let next = 0;
const started = performance.now();
const deadline = started + maxSeconds * 1000;

async function worker() {
  while (next < requests.length && performance.now() < deadline) {
    const r = requests[next++];
    const t0 = performance.now();
    let status;
    try {
      const res = await fetch(r.url, { method: r.method, headers: r.headers, body: r.body });
      await res.arrayBuffer();
      status = res.status;
    } catch {
      status = 0;
    }
    latencies.push(performance.now() - t0);
    statuses[status] = (statuses[status] ?? 0) + 1;
  }
}

await Promise.all(Array.from({ length: concurrency }, worker));
parentPort.postMessage({ latencies, statuses, seconds: (performance.now() - started) / 1000 });
