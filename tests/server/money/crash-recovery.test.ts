/**
 * The server killed mid-load (docs/decisions.md D9): a real `server/main.ts` process on a real database (a PGlite
 * DATA_DIR, or a fresh database on the PostgreSQL server named by TEST_DATABASE_URL), members signed in through the
 * sandbox OAuth flow and funded through the sandbox cashier, then a bounded burst of wallet pays (with
 * Idempotency-Key) and member stops on the demo devices 1..6, and SIGKILL in the middle of it. A second server
 * starts on the same database with its real scheduler, nothing injected. Afterwards every ledger invariant holds,
 * every 201 the client saw is a paid order that started or was refunded, every acknowledged stop kept its refund,
 * and a request whose answer was lost can be repeated with its key without a second charge.
 *
 * PGlite and SIGKILL: the embedded database writes its files through ordinary write() calls of the server process,
 * so when that process dies the kernel still holds every byte written; reopening runs PostgreSQL's own crash
 * recovery from the WAL. (Power loss is another matter: PGlite does not fsync. That is out of scope for a process
 * kill and stated here rather than hidden.) The same kill scenario therefore runs on both databases.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { and, eq, inArray, isNotNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../server/db/client';
import { SERVER_ARGS } from '../../../scripts/server-command';
import { device_sessions, orders } from '../../../server/db/schema';
import type {
  OrderStatus,
  PayResponse,
  ServicePrice,
  StopResponse,
  UsingSession,
} from '../../../src/domain/api';
import { assertLedgerInvariants } from './invariants';
import { pressConfirmAtCashier } from './money-harness';
import { postJson, signInMember, withCookie } from '../test-app';

const ROOT = path.resolve(__dirname, '../../..');
const MEMBERS = 4;
const DEVICES = [1, 2, 3, 4, 5, 6];
/** Rounds per device at most (each: two members race for the device, one of them twice with the same key). */
const MAX_ROUNDS = 4;
/** SIGKILL once this many distinct orders were answered 201: the second round is then in flight. */
const KILL_AFTER_ORDERS = 8;
/** ...or after this long, whatever happened (keeps the burst bounded if something stalls). */
const KILL_AFTER_MS = 20_000;

let dataDir: string;
let databaseUrl: string | undefined;
let dropDb: (() => Promise<void>) | undefined;
const children = new Set<ChildProcess>();

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'scango-crash-'));
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (adminUrl) {
    const { default: pg } = await import('pg');
    const name = `t_${randomBytes(6).toString('hex')}`;
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    await c.query(`create database ${name}`);
    await c.end();
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
    dropDb = async () => {
      const d = new pg.Client({ connectionString: adminUrl });
      await d.connect();
      // Let the closed pool's connections go first (as test-db.ts does), so forcing the drop reports nothing.
      for (let i = 0; i < 50; i++) {
        const r = await d.query<{ n: number }>(
          'select count(*)::int as n from pg_stat_activity where datname = $1',
          [name],
        );
        if ((r.rows[0]?.n ?? 0) === 0) break;
        await sleep(50);
      }
      await d.query(`drop database if exists ${name} with (force)`);
      await d.end();
    };
  }
});

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await dropDb?.();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

interface ServerProcess {
  child: ChildProcess;
  url: string;
  log(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * `node` with `SERVER_ARGS` (what `npm start` runs), as the restart test and the startup bench do: one process, so
 * SIGKILL hits the server itself (the `tsx` CLI would run the server in a grandchild that a SIGKILL of the CLI
 * leaves behind).
 */
async function startServerProcess(port: number): Promise<ServerProcess> {
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, SERVER_ARGS, {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: url,
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl ?? '',
      SEED: 'demo',
      SERVE_CLIENT: 'false',
      LOG_REQUESTS: 'false',
      NODE_ENV: 'test',
      // PostgreSQL without WeChat credentials needs the sandbox asked for (the embedded DB defaults to it).
      WECHAT_SANDBOX: 'true',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    }),
  );
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`server exited before it was healthy:\n${out}`);
    if (Date.now() > deadline) throw new Error(`server not healthy within 90 s:\n${out}`);
    const ok = await fetch(`${url}/backend/health`, { signal: AbortSignal.timeout(5000) }).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    await sleep(100);
  }
  return { child, url, log: () => out, exited };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Answer<T> = { status: number; body: T };

async function json<T>(base: string, p: string, init: RequestInit = {}): Promise<Answer<T>> {
  const res = await fetch(base + p, { redirect: 'manual', ...init });
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = { code: 'NOT_JSON', message: text.slice(0, 200) };
  }
  return { status: res.status, body: body as T };
}

/** The `request` half of an app, over HTTP: what `signInMember` and `pressConfirmAtCashier` need. */
const overHttp = (base: string) => ({
  request: (p: string, init: RequestInit = {}) => fetch(base + p, { redirect: 'manual', ...init }),
});

type PayBody = { device_id: number; venue_id: number; price_id: number; method: 'wallet' };
type PayAnswer = PayResponse & { code?: string; message?: string };

interface PayAttempt {
  member: number;
  key: string;
  body: PayBody;
  /** undefined: no answer (the connection died with the server). */
  status?: number;
  code?: string;
  order_no?: string;
}

interface StopAttempt {
  member: number;
  order_no: string;
  refund_fen: number;
}

describe('the server killed mid-load', () => {
  it('keeps every invariant and every paid order across SIGKILL and a restart', async () => {
    const port = await freePort();
    let server = await startServerProcess(port);
    const first = server;
    try {
      // ---- members, signed in through the sandbox OAuth flow and funded at the sandbox cashier
      const http = overHttp(server.url);
      const cookies: string[] = [];
      for (let i = 0; i < MEMBERS; i++) cookies.push(await signInMember(http, `o-crash-${i}`));
      const device1 = await json<{ merchant_id: number }>(server.url, '/backend/api/devices/1');
      expect(device1.status).toBe(200);
      const merchantId = device1.body.merchant_id;
      for (const cookie of cookies) {
        const r = await json<{ order: { order_no: string }; jsapi: { cashier_url?: string } }>(
          server.url,
          '/backend/user/recharge',
          withCookie(cookie, postJson({ merchant_id: merchantId, package_id: 1 })),
        );
        expect(r.status, JSON.stringify(r.body)).toBe(201);
        // pressConfirmAtCashier only uses `request`: the HTTP requester stands in for the in-process app.
        const confirmed = await pressConfirmAtCashier(http, r.body.jsapi.cashier_url!);
        expect(confirmed.status).toBe(303);
        // The sandbox notifies the real notify URL; the order query books it too if the notification is slow.
        const deadline = Date.now() + 15_000;
        for (;;) {
          const q = await json<OrderStatus>(
            server.url,
            `/backend/api/query?order_no=${r.body.order.order_no}`,
          );
          if (q.body.status === 'paid') break;
          if (Date.now() > deadline) throw new Error(`recharge not booked: ${JSON.stringify(q.body)}`);
          await sleep(100);
        }
      }
      for (const cookie of cookies) {
        const p = await json<{ wallets: { balance_fen: number }[] }>(
          server.url,
          '/backend/user/profile',
          withCookie(cookie),
        );
        expect(p.body.wallets[0]?.balance_fen).toBe(5500);
      }

      // ---- the burst
      const deviceVenue = new Map<number, number>();
      const venuePrice = new Map<number, number>();
      for (const id of DEVICES) {
        const d = await json<{ venue_id: number }>(server.url, `/backend/api/devices/${id}`);
        deviceVenue.set(id, d.body.venue_id);
        if (!venuePrice.has(d.body.venue_id)) {
          const prices = await json<{ items: ServicePrice[] }>(
            server.url,
            `/backend/api/venue-service-prices?venue_id=${d.body.venue_id}`,
          );
          venuePrice.set(d.body.venue_id, prices.body.items[0]!.id);
        }
      }

      const pays: PayAttempt[] = [];
      const stops: StopAttempt[] = [];
      const answeredOrders = new Set<string>();
      let killed = false;
      const kill = () => {
        if (killed) return;
        killed = true;
        first.child.kill('SIGKILL');
      };
      const killTimer = setTimeout(kill, KILL_AFTER_MS);

      const pay = async (attempt: PayAttempt) => {
        pays.push(attempt);
        if (killed) return attempt;
        try {
          const r = await json<PayAnswer>(
            first.url,
            '/backend/user/pay',
            withCookie(cookies[attempt.member]!, postJson(attempt.body, { 'Idempotency-Key': attempt.key })),
          );
          attempt.status = r.status;
          attempt.code = r.body?.code;
          if (r.status === 201) {
            attempt.order_no = r.body.order.order_no;
            answeredOrders.add(attempt.order_no);
            if (answeredOrders.size >= KILL_AFTER_ORDERS) kill();
          }
        } catch {
          // the server died under this request
        }
        return attempt;
      };

      /** A member stops their session as soon as it runs (pro-rata refund), freeing the device for the next round. */
      const stopWhenRunning = async (member: number, order_no: string) => {
        const deadline = Date.now() + 8000;
        while (!killed && Date.now() < deadline) {
          try {
            const r = await json<StopResponse & { code?: string }>(
              first.url,
              `/backend/user/using/${order_no}/stop`,
              withCookie(cookies[member]!, { method: 'POST' }),
            );
            if (r.status === 200) {
              stops.push({ member, order_no, refund_fen: r.body.refund_fen });
              return;
            }
            if (r.body?.code !== 'SESSION_NOT_RUNNING') return;
          } catch {
            return; // killed
          }
          await sleep(50);
        }
      };

      const worker = async (device: number) => {
        const body: PayBody = {
          device_id: device,
          venue_id: deviceVenue.get(device)!,
          price_id: venuePrice.get(deviceVenue.get(device)!)!,
          method: 'wallet',
        };
        for (let round = 0; round < MAX_ROUNDS && !killed; round++) {
          const a = (device + round) % MEMBERS;
          const b = (device + round + 1) % MEMBERS;
          const keyA = `crash-${device}-${round}-${a}`;
          const keyB = `crash-${device}-${round}-${b}`;
          const answers = await Promise.all([
            pay({ member: a, key: keyA, body }),
            pay({ member: a, key: keyA, body }), // the same request twice: one order
            pay({ member: b, key: keyB, body }),
          ]);
          const won = answers.find((x) => x.status === 201);
          if (!won) {
            if (answers.every((x) => x.status === undefined)) return;
            continue;
          }
          await stopWhenRunning(won.member, won.order_no!);
        }
      };
      await Promise.all(DEVICES.map(worker));
      clearTimeout(killTimer);
      kill();
      const death = await first.exited;
      expect(death.signal, first.log()).toBe('SIGKILL');

      const answered201 = pays.filter((x) => x.status === 201);
      const unanswered = pays.filter((x) => x.status === undefined);
      console.log(
        `crash-recovery (${databaseUrl ? 'postgres' : 'pglite'}): ${pays.length} pays sent, ` +
          `${answered201.length} answered 201 (${answeredOrders.size} orders), ${unanswered.length} unanswered, ` +
          `${stops.length} stops answered`,
      );
      expect(answeredOrders.size).toBeGreaterThan(0);
      // No refusal may be a server error, and a repeated key is never "reused" with the same request.
      for (const x of pays.filter((p) => p.status !== undefined)) {
        expect([201, 409], JSON.stringify(x)).toContain(x.status);
        expect(x.code).not.toBe('IDEMPOTENCY_KEY_REUSED');
      }
      // One order per key.
      const orderOfKey = new Map<string, string>();
      for (const x of answered201) {
        const k = `${x.member}/${x.key}`;
        expect(orderOfKey.get(k) ?? x.order_no).toBe(x.order_no);
        orderOfKey.set(k, x.order_no!);
      }

      // ---- restart on the same database, same port; the real scheduler does the rest
      server = await startServerProcess(port);
      const second = server;

      // Every key answered 201 answers the same order again: nothing paid was lost.
      for (const [k, order_no] of orderOfKey) {
        const x = answered201.find((p) => `${p.member}/${p.key}` === k)!;
        const r = await json<PayAnswer>(
          second.url,
          '/backend/user/pay',
          withCookie(cookies[x.member]!, postJson(x.body, { 'Idempotency-Key': x.key })),
        );
        expect(r.status, JSON.stringify(r.body)).toBe(201);
        expect(r.body.order.order_no).toBe(order_no);
      }
      // A request whose answer died with the server is repeated as a client would: its key gives the order it
      // made before the crash, or (if it never committed) it is evaluated afresh. Never a second order for a key.
      const afterRetry = new Map<string, string>();
      for (const x of unanswered) {
        const k = `${x.member}/${x.key}`;
        const r = await json<PayAnswer>(
          second.url,
          '/backend/user/pay',
          withCookie(cookies[x.member]!, postJson(x.body, { 'Idempotency-Key': x.key })),
        );
        expect([201, 409], JSON.stringify(r.body)).toContain(r.status);
        expect(r.body?.code).not.toBe('IDEMPOTENCY_KEY_REUSED');
        if (r.status === 201) {
          const known = orderOfKey.get(k) ?? afterRetry.get(k);
          if (known) expect(r.body.order.order_no).toBe(known);
          afterRetry.set(k, r.body.order.order_no);
        }
      }

      // Wait (bounded) until no session waits for its device and every order we know of is in a final-enough state.
      const knownOrders = new Set([...orderOfKey.values(), ...afterRetry.values()]);
      const finalEnough = new Set(['started', 'completed', 'refunded', 'failed']);
      const settleStart = Date.now();
      const settleDeadline = settleStart + 40_000;
      let lastSeen = '';
      for (;;) {
        let pending = 0;
        for (const cookie of cookies) {
          const u = await json<{ items: UsingSession[] }>(
            second.url,
            '/backend/user/using',
            withCookie(cookie),
          );
          pending += u.body.items.filter((s) => s.status === 'starting').length;
        }
        const notFinal: string[] = [];
        for (const order_no of knownOrders) {
          const q = await json<OrderStatus>(second.url, `/backend/api/query?order_no=${order_no}`);
          if (!finalEnough.has(q.body.status)) notFinal.push(`${order_no}:${q.body.status}`);
        }
        lastSeen = `${pending} sessions starting; not final: ${notFinal.join(', ') || 'none'}`;
        if (pending === 0 && notFinal.length === 0) break;
        if (Date.now() > settleDeadline) throw new Error(`not settled within 40 s: ${lastSeen}`);
        await sleep(500);
      }

      const settledMs = Date.now() - settleStart;
      second.child.kill('SIGTERM');
      const stopped = await second.exited;
      expect(stopped.code, second.log()).toBe(0);

      // ---- the database itself, opened after the server is gone (PGlite has one process)
      const database = await openDatabase(databaseUrl ? { databaseUrl } : { dataDir });
      try {
        await assertLedgerInvariants(database.db, { settled: true });
        const db = database.db;
        // Every 201 the client saw is a paid order that started (maybe completed) or was refunded.
        const rows = await db
          .select({
            order_no: orders.order_no,
            status: orders.status,
            paid_at: orders.paid_at,
            refunded_fen: orders.refunded_fen,
          })
          .from(orders)
          .where(inArray(orders.order_no, [...knownOrders]));
        expect(rows.map((r) => r.order_no).sort()).toEqual([...knownOrders].sort());
        for (const r of rows) {
          expect(r.paid_at, r.order_no).not.toBeNull();
          expect(['started', 'completed', 'refunded'], `${r.order_no} ${r.status}`).toContain(r.status);
        }
        // Every stop answered 200 kept its refund and its stopped session.
        for (const s of stops) {
          const [o] = await db
            .select({ refunded_fen: orders.refunded_fen, session: device_sessions.status })
            .from(orders)
            .innerJoin(device_sessions, eq(device_sessions.order_id, orders.id))
            .where(eq(orders.order_no, s.order_no));
          expect(o?.session, s.order_no).toBe('stopped');
          expect(o!.refunded_fen).toBeGreaterThanOrEqual(s.refund_fen);
        }
        // Every paid consume order belongs to a request we sent (no charge the client cannot find by its key).
        const keys = new Set(pays.map((p) => p.key));
        const paid = await db
          .select({ order_no: orders.order_no, key: orders.idempotency_key })
          .from(orders)
          .where(and(eq(orders.kind, 'consume'), isNotNull(orders.paid_at)));
        for (const p of paid) expect(keys.has(p.key ?? ''), `${p.order_no} key ${p.key}`).toBe(true);
        // What the crash left behind and how the second server resolved it (for the log, not asserted).
        const outcome = await db
          .select({
            order: orders.status,
            session: device_sessions.status,
            reason: device_sessions.failure_reason,
          })
          .from(orders)
          .innerJoin(device_sessions, eq(device_sessions.order_id, orders.id))
          .where(eq(orders.kind, 'consume'));
        const tally = new Map<string, number>();
        for (const o of outcome) {
          const k = `${o.order}/${o.session}${o.reason ? ` (${o.reason})` : ''}`;
          tally.set(k, (tally.get(k) ?? 0) + 1);
        }
        console.log(
          `crash-recovery: settled ${settledMs} ms after the restart; consume orders/sessions: ` +
            [...tally].map(([k, n]) => `${n} ${k}`).join(', '),
        );
      } finally {
        await database.close();
      }
    } finally {
      for (const child of children) child.kill('SIGKILL');
    }
  }, 180_000);
});
