/**
 * Wallet pay throughput on a real listening server (loopback): POST /backend/user/pay from the wallet, each request
 * a different free device, spread over many members, with p50/p99, on the embedded DB and (when configured) on
 * PostgreSQL. Every pay locks the member's wallet, writes the split (platform fee, partner share, merchant) and a
 * `starting` device session in one transaction, then the device acknowledges (the bench's simulated devices run in
 * a process of their own, bench/device-fleet.ts, and the server runs the embedded broker). The ledger invariants are
 * checked after the run (tests/server/money/invariants.ts). Also: the gzip bytes a phone loads before /user/pay is
 * interactive (measured by scripts/size.ts on a fresh production build; the `ms` column is the build time).
 */
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { and, asc, eq } from 'drizzle-orm';
import { startServer, type RunningServer } from '../../server/start';
import { statementCounter } from '../../server/db/client';
import { devices, members, orders, service_prices } from '../../server/db/schema';
import { createMemberSession, MEMBER_COOKIE } from '../../server/member/member-sessions';
import { newOrderNo, settleWechatPayment } from '../../server/services/orders';
import type { MqttDevicesGateway } from '../../server/services/devices/mqtt/mqtt-devices';
import { hashDeviceSecret, newDeviceSecret } from '../../server/services/devices/device-secrets';
import { type DeviceFleetProcess, startDeviceFleet } from '../device-fleet';
import { ledgerViolations } from '../../tests/server/money/invariants';
import { BUDGET, measure } from '../../scripts/size';
import type { BenchContext, BenchRow } from '../types';
import {
  alternating,
  type HttpRequestSpec,
  type LoadResult,
  ROUNDS,
  round,
  runHttpLoad,
  type Stalls,
  watchStalls,
  withScratchDatabase,
} from '../lib';
import { floorPayer, loadBare, loadHttp } from '../pay-floor';

const MEMBERS = 64;
/** Pays sent one at a time after the load, to count the statements of one pay. */
const SEQUENTIAL = 10;
/**
 * Pays through the `node:http` floor and through the app before the timed rounds, not measured: the app's code
 * (routing, validation, SQL building) is compiled by V8 as it runs, and without this its first round ran slower
 * than its later ones in five runs of six (docs/performance.md, "Warmed up before the rounds").
 */
const WARM_UP = 320;

/**
 * Bench fixtures: enough online devices for every request (each with a secret, as staff issue one to hardware: the
 * fleet process connects them), members with money and a live session each.
 */
async function prepare(server: RunningServer, count: number) {
  const { db } = server.deps;
  const [d0] = await db.select().from(devices).orderBy(asc(devices.id)).limit(1);
  if (!d0) throw new Error('no demo device');
  const [price] = await db
    .select()
    .from(service_prices)
    .where(and(eq(service_prices.venue_id, d0.venue_id), eq(service_prices.active, true)))
    .orderBy(asc(service_prices.sort))
    .limit(1);
  if (!price) throw new Error('no demo price');
  const now = new Date();
  const secrets = Array.from({ length: count }, () => newDeviceSecret());
  const rows = Array.from({ length: count }, (_, i) => ({
    merchant_id: d0.merchant_id,
    venue_id: d0.venue_id,
    product_id: d0.product_id,
    name: `压测设备 ${i + 1}`,
    serial: `BENCH-${randomBytes(3).toString('hex')}-${i}`,
    secret_hash: hashDeviceSecret(secrets[i]!),
    // Online as if it had just sent its heartbeat (the fleet heartbeats them from its connect on).
    last_heartbeat_at: now,
  }));
  const ids: number[] = [];
  for (let i = 0; i < rows.length; i += 500) {
    const inserted = await db
      .insert(devices)
      .values(rows.slice(i, i + 500))
      .returning({ id: devices.id });
    ids.push(...inserted.map((r) => r.id));
  }
  const perMember = Math.ceil(count / MEMBERS) * price.price_fen;
  const cookies: string[] = [];
  const memberIds: number[] = [];
  for (let m = 0; m < MEMBERS; m++) {
    const [mem] = await db
      .insert(members)
      .values({ openid: `bench-${randomBytes(6).toString('hex')}` })
      .returning({ id: members.id });
    memberIds.push(mem!.id);
    // Money comes in the real way: a WeChat recharge booked by the money service.
    await db.transaction(async (tx) => {
      const [o] = await tx
        .insert(orders)
        .values({
          order_no: newOrderNo('recharge'),
          kind: 'recharge',
          method: 'wechat',
          status: 'pending',
          member_id: mem!.id,
          merchant_id: d0.merchant_id,
          amount_fen: perMember,
        })
        .returning();
      await settleWechatPayment(tx, o!, { transaction_id: `bench-${o!.id}`, now });
    });
    cookies.push(`${MEMBER_COOKIE}=${await createMemberSession(db, mem!.id, now)}`);
  }
  return {
    ids,
    devices: rows.map((r, i): [string, string] => [r.serial, secrets[i]!]),
    venue_id: d0.venue_id,
    merchant_id: d0.merchant_id,
    price_id: price.id,
    price_fen: price.price_fen,
    minutes: price.minutes,
    cookies,
    memberIds,
  };
}

type Fixture = Awaited<ReturnType<typeof prepare>>;

/** One wallet pay through the app's HTTP API on device `fx.ids[i]`, as a request to send. */
function payRequest(url: string, fx: Fixture, i: number, key: string): HttpRequestSpec {
  return {
    url,
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      cookie: fx.cookies[i % fx.cookies.length]!,
      'Idempotency-Key': key,
    },
    body: JSON.stringify({
      device_id: fx.ids[i],
      venue_id: fx.venue_id,
      price_id: fx.price_id,
      method: 'wallet',
    }),
  };
}

/** That pay sent from this thread; resolves to the status. */
async function appPay(url: string, fx: Fixture, i: number, key: string): Promise<number> {
  const { method, headers, body } = payRequest(url, fx, i, key);
  const res = await fetch(url, { method, headers, body });
  await res.arrayBuffer();
  return res.status;
}

/**
 * Lets every start command go out and the simulator acknowledge it (scheduler passes run here, so the next run does
 * not carry this one's backlog), then checks the whole ledger: the violations left.
 */
async function settledViolations(server: RunningServer): Promise<string[]> {
  const devices = server.deps.devices;
  for (let i = 0; i < 300; i++) {
    const t = await devices?.tick();
    await devices?.settle();
    if (t && t.dispatched > 0) continue;
    if ((await ledgerViolations(server.deps.db, { settled: true })).length === 0) return [];
    await new Promise((ok) => setTimeout(ok, 100));
  }
  return ledgerViolations(server.deps.db, { settled: true });
}

/** The app's rounds' stalls, for the note: by round, the event loop's delay p99, then the worst of each kind. */
const stallNote = (s: Stalls[]) =>
  `event-loop delay p99 ${s.map((d) => round(d.loopP99)).join(', ')} ms by round, ` +
  `max ${round(Math.max(...s.map((d) => d.loopMax)))} ms; GC pause max ${round(Math.max(...s.map((d) => d.gcMax)))} ms ` +
  `(${s.map((d) => round(d.gcTotal)).join(', ')} ms by round); CPU stolen ${s.map((d) => d.steal).join(', ')} ms by round`;

const invNote = (v: string[]) =>
  v.length === 0 ? 'invariants ok' : `INVARIANTS VIOLATED (${v.length}): ${v[0]}`;

/** Statements one pay sends on its request path: the fewest counted over sequential pays (no other work). */
async function requestPathStatements(server: RunningServer, url: string, fx: Fixture, from: number) {
  const counter = statementCounter(server.deps.db);
  if (!counter) return undefined;
  let fewest = Infinity;
  for (let i = from; i < from + SEQUENTIAL; i++) {
    const before = counter.count;
    await appPay(url, fx, i, `bench-seq-${i}`);
    fewest = Math.min(fewest, counter.count - before);
  }
  return fewest;
}

async function walletPays(
  ctx: BenchContext,
  db: 'pglite' | 'postgres',
  databaseUrl?: string,
): Promise<BenchRow[]> {
  const server = await startServer(
    {
      PORT: 0,
      HOST: '127.0.0.1',
      DATA_DIR: path.join(ctx.workDir, `pay-${db}`),
      DATABASE_URL: databaseUrl ?? '',
      WECHAT_SANDBOX: true,
      SERVE_CLIENT: false,
      LOG_REQUESTS: false,
      NODE_ENV: 'production',
      // The bench's devices are hardware to the server: a process of their own connects them (bench/device-fleet.ts).
      DEVICE_SIMULATOR: false,
    },
    { quiet: true },
  );
  let fleet: DeviceFleetProcess | undefined;
  try {
    const n = ctx.limits.maxRequests;
    const limits = { ...ctx.limits, maxRequests: n };
    const c = ctx.limits.concurrency;
    // One device more than the floor's run uses: its pay below is the warm-up.
    const floorFx = await prepare(server, n + 1);
    // Each with the devices of its warm-up pays after the timed runs' (and, for the app, the sequential pays').
    const httpFx = await prepare(server, n + WARM_UP);
    const fx = await prepare(server, n + SEQUENTIAL + WARM_UP);
    const floorPay = await floorPayer(server.deps.db, floorFx, server.deps.devices);
    // About 6,000 MQTT clients connect to the server's broker here, each checked against its secret's hash, before
    // any timed run.
    ctx.log(`wallet-pay (${db}): connecting the simulated devices (their own process)`);
    const brokerUrl = (server.deps.devices?.gateway as MqttDevicesGateway | undefined)?.brokerUrl;
    if (!brokerUrl) throw new Error('the pay bench needs the embedded MQTT broker');
    fleet = await startDeviceFleet(
      brokerUrl,
      [floorFx, httpFx, fx].flatMap((f) => f.devices),
    );
    const offline = fleet.missing;
    await floorPay(n);
    if (offline > 0) ctx.log(`wallet-pay (${db}): ${offline} simulated devices did not connect`);
    await settledViolations(server);
    ctx.log(`wallet-pay (${db}): bare SQL floor`);
    const bare = await loadBare(floorPay, limits);
    const bareInv = await settledViolations(server);
    const httpPay = await floorPayer(server.deps.db, httpFx, server.deps.devices);
    const counter = statementCounter(server.deps.db);
    let appStatements = 0;
    // What held up the server's thread in each of the app's rounds: its event loop's delay, GC pauses, CPU stolen.
    const stalls: Stalls[] = [];
    const load = os.loadavg()[0]!.toFixed(1);
    const url = `http://127.0.0.1:${server.port}/backend/user/pay`;
    ctx.log(`wallet-pay (${db}): ${WARM_UP} pays through each to warm up, not measured`);
    const warm = { ...limits, maxRequests: WARM_UP };
    await loadHttp((i) => httpPay(n + i), warm);
    await runHttpLoad((i) => payRequest(url, fx, n + SEQUENTIAL + i, `bench-warm-${i}`), warm);
    const warmInv = await settledViolations(server);
    ctx.log(`wallet-pay (${db}): node:http floor and the app, ${ROUNDS} rounds each`);
    // The node:http floor and the app in alternating rounds (bench/lib.ts, `alternating`), the ledger checked after
    // each; the statements counted over the app's rounds only.
    const runs = await alternating(
      n,
      ROUNDS,
      async (which, from, count) => {
        const part = { ...limits, maxRequests: count };
        if (which === 'a') return loadHttp((i) => httpPay(from + i), part);
        const before = counter?.count ?? 0;
        const watched = watchStalls();
        const r = await runHttpLoad((i) => payRequest(url, fx, from + i, `bench-${from + i}`), part);
        stalls.push(await watched());
        appStatements += (counter?.count ?? 0) - before;
        return r;
      },
      () => settledViolations(server),
    );
    const viaHttp = runs.a;
    const r = runs.b;
    const httpInv = runs.checks.a.flat();
    const appInv = runs.checks.b.flat();
    const overRun = counter ? appStatements / r.requests : undefined;
    const perPay = await requestPathStatements(server, url, fx, n);
    const seqInv = await settledViolations(server);
    const row = (name: string, x: LoadResult, note: string): BenchRow => ({
      section: 'wallet-pay',
      name,
      db,
      requests: x.requests,
      rps: round(x.rps),
      p50_ms: round(x.p50_ms),
      p99_ms: round(x.p99_ms),
      note: `${x.errors ? `${x.errors} errors ${JSON.stringify(x.statuses)}` : 'all 201'}; ${note}`,
    });
    return [
      row(
        `floor: the same rows by one bare SQL transaction (9 statements), concurrency ${c}`,
        bare,
        invNote(bareInv),
      ),
      row(`floor: the same transaction behind plain node:http, concurrency ${c}`, viaHttp, invNote(httpInv)),
      row(
        `POST /backend/user/pay (wallet), ${MEMBERS} members, concurrency ${c}`,
        r,
        `${round(r.rps / viaHttp.rps, 2)} of the HTTP floor (rounds ${runs.ratios.map((x) => round(x, 2)).join(', ')}), ` +
          `${round(r.rps / bare.rps, 2)} of the bare SQL floor; ` +
          `p99 ${round(r.p99_ms / viaHttp.p99_ms, 2)} of the HTTP floor's; ` +
          `${perPay ?? '?'} statements while one pay is in flight (its own and the start command's first), ${overRun === undefined ? '?' : round(overRun)} ` +
          `per pay over the run (start command, acknowledgement, heartbeats included); ` +
          `${stallNote(stalls)}; load average ${load}; ` +
          (offline > 0 ? `${offline} simulated devices not connected; ` : '') +
          invNote([...warmInv, ...appInv, ...seqInv]),
      ),
    ];
  } finally {
    await fleet?.stop();
    await server.close();
  }
}

/** The bytes a phone downloads before /user/pay is interactive (gzip), from a fresh production build. */
function payPageBytes(ctx: BenchContext): BenchRow {
  const out = path.join(ctx.workDir, 'pay-dist');
  const t0 = performance.now();
  const res = spawnSync(
    process.execPath,
    [
      path.join(ctx.root, 'node_modules/vite/bin/vite.js'),
      'build',
      '--outDir',
      out,
      '--emptyOutDir',
      '--logLevel',
      'error',
    ],
    { cwd: ctx.root, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  if (res.status !== 0) throw new Error(`vite build failed (exit ${res.status})`);
  const size = measure(out, BUDGET.path);
  const kb = (n: number) => (n / 1000).toFixed(1);
  return {
    section: 'pay-page',
    name: `gzip bytes before ${BUDGET.path} is interactive (${size.jsFiles.length} JS, ${size.cssFiles.length} CSS files)`,
    ms: Math.round(performance.now() - t0),
    note:
      `JS ${kb(size.js)} KB (budget ${kb(BUDGET.js)}), CSS ${kb(size.css)} KB (budget ${kb(BUDGET.css)})` +
      (size.js > BUDGET.js || size.css > BUDGET.css ? ' OVER BUDGET' : ''),
  };
}

export default async function paySection(ctx: BenchContext): Promise<BenchRow[]> {
  ctx.log('pay-page: production build');
  const rows: BenchRow[] = [];
  try {
    rows.push(payPageBytes(ctx));
  } catch (err) {
    rows.push({ section: 'pay-page', name: 'failed', note: String((err as Error).message).slice(0, 200) });
  }
  ctx.log('wallet-pay: embedded DB');
  rows.push(...(await walletPays(ctx, 'pglite')));
  if (ctx.postgresUrl) {
    ctx.log('wallet-pay: PostgreSQL');
    rows.push(...(await withScratchDatabase(ctx.postgresUrl, (url) => walletPays(ctx, 'postgres', url))));
  } else {
    rows.push({
      section: 'wallet-pay',
      name: 'PostgreSQL',
      db: 'postgres',
      note: 'skipped: set BENCH_DATABASE_URL',
    });
  }
  return rows;
}
