/**
 * The bench's HTTP load generator on a thread of its own (bench/lib.ts, runHttpLoad): the same closed loop as
 * runLoad, over requests prepared in advance, so sending them and reading the answers never takes the server's
 * thread (the server under test may run in the bench's own process, PGlite and all). Plain JavaScript, so the
 * worker needs no TypeScript loader. Posts back the latencies (ms) and the count of each status (0: no answer).
 *
 * Requests go out through `node:http` on one keep-alive socket per loop (`concurrency` sockets), so a request is on
 * the wire as soon as its loop sends it. `client: 'fetch'` (BENCH_LOAD=fetch) sends them with undici's fetch instead,
 * as the bench did before: its pool opened more sockets than loops and held some requests back for a whole cycle of
 * the server, which the latencies then counted as the server's (docs/performance.md, "The load generator's own tail").
 */
/* global fetch, URL, Buffer */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';

const { requests, concurrency, maxSeconds, client } = workerData;
const latencies = [];
const statuses = {};
let next = 0;
const started = performance.now();
const deadline = started + maxSeconds * 1000;

const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });

/** One request over the agent's sockets; resolves to the status once the whole answer has arrived. */
function sendHttp(r) {
  const url = new URL(r.url);
  const headers =
    r.body === undefined ? r.headers : { ...r.headers, 'content-length': Buffer.byteLength(r.body) };
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: r.method,
        headers,
        agent,
      },
      (res) => {
        res.on('data', () => {});
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(r.body);
  });
}

async function sendFetch(r) {
  const res = await fetch(r.url, { method: r.method, headers: r.headers, body: r.body });
  await res.arrayBuffer();
  return res.status;
}

const send = client === 'fetch' ? sendFetch : sendHttp;

async function worker() {
  while (next < requests.length && performance.now() < deadline) {
    const r = requests[next++];
    const t0 = performance.now();
    let status;
    try {
      status = await send(r);
    } catch {
      status = 0;
    }
    latencies.push(performance.now() - t0);
    statuses[status] = (statuses[status] ?? 0) + 1;
  }
}

await Promise.all(Array.from({ length: concurrency }, worker));
agent.destroy();
parentPort.postMessage({ latencies, statuses, seconds: (performance.now() - started) / 1000 });
