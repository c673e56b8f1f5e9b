/**
 * The whole money path in one process, for the money suites: a fresh test DB (PGlite, or PostgreSQL with
 * TEST_DATABASE_URL) with the demo seed, the real app, the WeChat sandbox (real signing, AES-GCM notifications)
 * whose clients and notification sender reach the app through `app.request`, and the devices service with the
 * embedded simulator (real acknowledgements). Members sign in through the real sandbox OAuth flow (tests/server/member-helpers.ts).
 */
import type { Hono } from 'hono';
import { createApp } from '../../server/app';
import type { AppDeps, AppEnv } from '../../server/context';
import { parseEnv } from '../../server/env';
import { ensureBaseData, seedDemo } from '../../server/seed';
import { and, count, eq, lte } from 'drizzle-orm';
import { device_sessions, devices as devicesTable, members, wechat_refunds } from '../../server/db/schema';
import { createRefundWorker, type RefundWorker } from '../../server/services/orders/refund-worker';
import { createDevicesForDeps } from '../../server/services/devices/devices.start-hook';
import type { DevicesService } from '../../server/services/devices/devices.service';
import { sandboxMounts } from '../../server/sandbox/sandbox.start-hook';
import { createWechat } from '../../server/sandbox/wechat-sandbox';
import type { Wechat } from '../../server/wechat/types';
import type { Database } from '../../server/db/client';
import { createTestDb } from './test-db';
import { signInMember } from './member-helpers';

export const PUBLIC_URL = 'http://money.test';

export interface MoneyWorld {
  database: Database;
  app: Hono<AppEnv>;
  deps: AppDeps & { wechat: Wechat; devices: DevicesService; refunds: RefundWorker };
  wechat: Wechat;
  /** The refund outbox worker (no timer: `settle()` runs its passes). */
  refunds: RefundWorker;
  devices: DevicesService;
  request(path: string, init?: RequestInit): Promise<Response>;
  json<T = unknown>(path: string, init?: RequestInit): Promise<{ status: number; body: T }>;
  /** A member (created on first use, as the first WeChat sign-in does) with a live session; returns its cookie. */
  signIn(openid: string): Promise<{ cookie: string; member_id: number }>;
  /** Waits for the sandbox's queued notifications and the devices' pending events. */
  settle(): Promise<void>;
  close(): Promise<void>;
}

export async function startMoneyWorld(opts: { ackDelayMs?: number } = {}): Promise<MoneyWorld> {
  const database = await createTestDb();
  const env = parseEnv(
    { NODE_ENV: 'test', SERVE_CLIENT: false, LOG_REQUESTS: false, DATA_DIR: 'memory://', PUBLIC_URL },
    {},
  );
  await ensureBaseData(database.db);
  await seedDemo(database.db);
  const holder: { app?: Hono<AppEnv> } = {};
  const fetchIntoApp = async (input: string, init?: RequestInit) => {
    if (!holder.app) throw new Error('app not ready');
    return holder.app.request(input, init);
  };
  const wechat = await createWechat(
    // A made-up public host (not loopback), so the sandbox is asked for explicitly.
    { PUBLIC_URL, WECHAT_SANDBOX: true },
    { db: database.db, fetch: fetchIntoApp, sandbox: { retryFactor: 0.001, pollMs: 10 } },
  );
  const deps = { db: database.db, env, now: () => new Date(), dbKind: database.kind } as AppDeps & {
    wechat: Wechat;
    devices: DevicesService;
    refunds: RefundWorker;
  };
  deps.wechat = wechat;
  deps.refunds = createRefundWorker({ db: database.db, pay: wechat.pay, now: deps.now });
  deps.devices = createDevicesForDeps(deps, {
    simulator: { ackDelayMs: opts.ackDelayMs ?? 20 },
    tickMs: 100,
  });
  deps.mounts = sandboxMounts(deps);
  const app = createApp(deps);
  holder.app = app;
  const stopDevices = await deps.devices.start();
  // The simulator's first heartbeat brings every device online.
  await deps.devices.settle();
  const a = app;
  const request = async (path: string, init?: RequestInit) => a.request(path, init);
  return {
    database,
    app: a,
    deps,
    wechat,
    devices: deps.devices,
    refunds: deps.refunds,
    request,
    async json<T>(path: string, init?: RequestInit) {
      const res = await request(path, init);
      const text = await res.text();
      return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
    },
    async signIn(openid) {
      // The real sign-in: authorize -> sandbox approval -> callback -> `sid` cookie (member created on first use).
      const cookie = await signInMember(a, openid);
      const [m] = await database.db
        .select({ id: members.id })
        .from(members)
        .where(eq(members.openid, openid));
      if (!m) throw new Error(`member ${openid} was not created by the sign-in`);
      return { cookie, member_id: m.id };
    },
    async settle() {
      // Notifications first (they may start devices), then every `starting` session acknowledged or refused, then
      // the refunds that decided sent to the sandbox and their notifications delivered.
      const deadline = Date.now() + 10_000;
      for (;;) {
        await wechat.sandbox?.drainNotifications();
        await deps.devices.settle();
        await deps.refunds.kick();
        await wechat.sandbox?.drainNotifications();
        const [row] = await database.db
          .select({ n: count() })
          .from(device_sessions)
          .where(eq(device_sessions.status, 'starting'));
        const [due] = await database.db
          .select({ n: count() })
          .from(wechat_refunds)
          .where(and(eq(wechat_refunds.status, 'pending'), lte(wechat_refunds.next_attempt_at, deps.now())));
        if (((row?.n ?? 0) === 0 && (due?.n ?? 0) === 0) || Date.now() > deadline) return;
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async close() {
      await stopDevices();
      await wechat.sandbox?.stop();
      await database.close();
    },
  };
}

/** The ids of the demo data (devices 1..6: three at venue 1, three at venue 2). */
export async function demoDevices(world: MoneyWorld) {
  return world.database.db.select().from(devicesTable).orderBy(devicesTable.id);
}

export const withCookie = (cookie: string, init: RequestInit = {}): RequestInit => ({
  ...init,
  headers: { ...(init.headers as Record<string, string> | undefined), cookie },
});

export const postJson = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

/** What the browser does at the sandbox cashier: open the page, press 确认支付 (posts the page's form). */
export async function pressConfirmAtCashier(world: MoneyWorld, cashierUrl: string): Promise<Response> {
  const page = await world.request(cashierUrl);
  const html = await page.text();
  if (page.status !== 200 || !html.includes('确认支付'))
    throw new Error(`cashier page: ${page.status} ${html}`);
  const form = /<form method="post" action="cashier\/confirm">([\s\S]*?)<\/form>/.exec(html)?.[1] ?? '';
  const fields = new URLSearchParams();
  for (const m of form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields.set(
      m[1]!,
      m[2]!
        .replace(/&amp;/g, '&')
        .replace(/&quot;/g, '"')
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&#39;/g, "'"),
    );
  }
  const action = new URL('cashier/confirm', new URL(cashierUrl, PUBLIC_URL)).pathname;
  return world.request(action, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: fields.toString(),
  });
}

/** A recharge end to end over HTTP: POST /user/recharge, the cashier's 确认支付, the notification delivered. */
export async function rechargeViaCashier(
  world: MoneyWorld,
  cookie: string,
  merchant_id: number,
  package_id: number,
): Promise<string> {
  const res = await world.json<{ order: { order_no: string }; jsapi: { cashier_url?: string } }>(
    '/backend/user/recharge',
    withCookie(cookie, postJson({ merchant_id, package_id })),
  );
  if (res.status !== 201 || !res.body.jsapi.cashier_url)
    throw new Error(`recharge: ${res.status} ${JSON.stringify(res.body)}`);
  const confirmed = await pressConfirmAtCashier(world, res.body.jsapi.cashier_url);
  if (confirmed.status !== 303) throw new Error(`confirm: ${confirmed.status} ${await confirmed.text()}`);
  await world.settle();
  return res.body.order.order_no;
}
