/**
 * Abuse: 400 anonymous requests per second for 10 s from one address (127.0.0.2, a real loopback source address)
 * against the public endpoints of `npm start` (device, venue and prices pages, polling of a pending WeChat order,
 * WeChat sign-in start), while legitimate phones at other addresses (127.0.0.3 and up, one per load) load the
 * pay page twice a second. Reports what the flood got (mostly 429), whether the legitimate loads still answered and how fast,
 * whether the server stayed healthy, and how many order queries went out to WeChat Pay (the sandbox's, counted
 * from the server's request log): at most one per order every 3 s (docs/security.md). Loopback only, bounded.
 */
import http from 'node:http';
import { percentile, round, startServerProcess } from '../lib';
import type { BenchContext, BenchRow } from '../types';

const FLOOD_RPS = 400;
const SECONDS = 10;

function get(port: number, agent: http.Agent, p: string): Promise<{ status: number; ms: number }> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: p, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - t0 }));
    });
    req.setTimeout(10_000, () => req.destroy());
    req.on('error', () => resolve({ status: 0, ms: performance.now() - t0 }));
  });
}

/** Signs a member in through the sandbox (from 127.0.0.1) and starts a WeChat Pay order that stays pending. */
async function pendingWechatOrder(base: string): Promise<string> {
  const start = await fetch(
    `${base}/backend/wechat/authorize?redirect=%2Fuser%2Fprofile&sandbox_openid=bench-abuse`,
    {
      redirect: 'manual',
    },
  );
  const browser = /wx_oauth=([^;]+)/.exec(start.headers.get('set-cookie') ?? '')![1];
  const approved = await fetch(new URL(start.headers.get('location')!, base), { redirect: 'manual' });
  const callback = await fetch(new URL(approved.headers.get('location')!, base), {
    redirect: 'manual',
    headers: { cookie: `wx_oauth=${browser}` },
  });
  const sid = /sid=([^;]+)/.exec(callback.headers.get('set-cookie') ?? '')![1];
  const prices = (await (await fetch(`${base}/backend/api/venue-service-prices?venue_id=1`)).json()) as {
    items: { id: number }[];
  };
  const pay = await fetch(`${base}/backend/user/pay`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', cookie: `sid=${sid}`, 'Idempotency-Key': 'bench-abuse-1' },
    body: JSON.stringify({ device_id: 1, venue_id: 1, price_id: prices.items[0]!.id, method: 'wechat' }),
  });
  const body = (await pay.json()) as { order: { order_no: string } };
  return body.order.order_no;
}

export default async function abuse(ctx: BenchContext): Promise<BenchRow[]> {
  const server = await startServerProcess(ctx, 'abuse', { SERVE_CLIENT: 'false', LOG_REQUESTS: 'true' });
  const { port } = server;
  const base = `http://localhost:${port}`;
  let outbound = 0;
  server.child.stdout!.on('data', (d: Buffer) => {
    const query = /GET \/backend\/sandbox\/wechatpay\/v3\/pay\/transactions\/out-trade-no\//g;
    outbound += d.toString().match(query)?.length ?? 0;
  });
  const flooder = new http.Agent({ keepAlive: true, maxSockets: 256, localAddress: '127.0.0.2' });
  const phones: http.Agent[] = [];
  const phone = (i: number) => {
    phones[i] ??= new http.Agent({
      keepAlive: true,
      maxSockets: 4,
      localAddress: `127.0.0.${3 + (i % 200)}`,
    });
    return phones[i];
  };
  try {
    const orderNo = await pendingWechatOrder(base);
    const targets = [
      '/backend/api/devices/1',
      '/backend/api/venues/1',
      '/backend/api/venue-service-prices?venue_id=1',
      `/backend/api/query?order_no=${orderNo}`,
      '/backend/wechat/authorize?redirect=%2F',
    ];
    outbound = 0;
    const flood: Promise<{ status: number; ms: number }>[] = [];
    const loads: Promise<{ ok: boolean; ms: number }>[] = [];
    const health: Promise<{ status: number; ms: number }>[] = [];
    const started = performance.now();
    let sent = 0;
    while (performance.now() - started < SECONDS * 1000) {
      const due = Math.floor(((performance.now() - started) / 1000) * FLOOD_RPS);
      while (sent < due) flood.push(get(port, flooder, targets[sent++ % targets.length]!));
      if (loads.length < ((performance.now() - started) / 1000) * 2) {
        const t0 = performance.now();
        loads.push(
          Promise.all(targets.slice(0, 4).map((p) => get(port, phone(loads.length), p))).then((r) => ({
            ok: r.every((x) => x.status === 200),
            ms: performance.now() - t0,
          })),
        );
        health.push(get(port, phone(0), '/backend/health'));
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    const floodResults = await Promise.all(flood);
    const loadResults = await Promise.all(loads);
    const healthResults = await Promise.all(health);
    const seconds = (performance.now() - started) / 1000;
    const statuses: Record<number, number> = {};
    for (const r of floodResults) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    const loadMs = loadResults.map((r) => r.ms).sort((a, b) => a - b);
    const okLoads = loadResults.filter((r) => r.ok).length;
    const healthy = healthResults.every((r) => r.status === 200);
    return [
      {
        section: 'abuse',
        name: `anonymous flood ${FLOOD_RPS}/s for ${SECONDS} s from one address`,
        db: 'pglite',
        requests: floodResults.length,
        rps: round(floodResults.length / seconds),
        p50_ms: round(
          percentile(
            floodResults.map((r) => r.ms).sort((a, b) => a - b),
            50,
          ),
        ),
        p99_ms: round(
          percentile(
            floodResults.map((r) => r.ms).sort((a, b) => a - b),
            99,
          ),
        ),
        note: `statuses ${JSON.stringify(statuses)}; server healthy throughout: ${healthy}`,
      },
      {
        section: 'abuse',
        name: 'pay-page loads (4 calls) from other addresses during the flood',
        db: 'pglite',
        requests: loadResults.length,
        p50_ms: round(percentile(loadMs, 50)),
        p99_ms: round(percentile(loadMs, 99)),
        note: `${okLoads}/${loadResults.length} answered 200; outbound WeChat order queries: ${outbound} (limit: one per 3 s)`,
      },
    ];
  } finally {
    flooder.destroy();
    phones.forEach((a) => a.destroy());
    await server.stop();
  }
}
