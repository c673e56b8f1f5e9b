/**
 * THE server test app: the real Hono app in-process on a fresh test database (PGlite, or PostgreSQL with
 * TEST_DATABASE_URL), with base data and the demo seed (unless `seed: false`), a movable clock and helpers. Parts are
 * added by options, never by another builder:
 * - `wechat`: the WeChat sandbox (real signing, AES-GCM notifications) whose clients and notification sender reach
 *   this app through `app.request`; `signIn(openid)` signs a member in through the real OAuth flow.
 * - `devices`: the devices service with the embedded simulator (real acknowledgements); `{ online: true }` waits
 *   for the first heartbeat, which brings every device online.
 * - `listen`: the app is also served on 127.0.0.1 (PUBLIC_URL becomes that origin) and the sandbox's clients speak
 *   loopback HTTP; `wechat: { receiver: true }` sends the sandbox's notifications to a recording receiver instead
 *   of the app's notify route (the WeChat protocol suites).
 * Requests go through `request(...)` / `json(...)`: real middleware, real DB.
 */
import type { Hono } from 'hono';
import { and, count, eq, lte } from 'drizzle-orm';
import { createApp } from '../../server/app';
import type { AppDeps, AppEnv } from '../../server/context';
import type { Database } from '../../server/db/client';
import { device_sessions, members, wechat_refunds } from '../../server/db/schema';
import { createRefundWorker, type RefundWorker } from '../../server/services/orders/refund-worker';
import { parseEnv, type EnvInput } from '../../server/env';
import { ensureBaseData, seedDemo } from '../../server/seed';
import type { WechatSandbox } from '../../server/sandbox/index';
import { sandboxMounts } from '../../server/sandbox/sandbox.start-hook';
import { createWechat } from '../../server/sandbox/wechat-sandbox';
import type { DevicesService } from '../../server/services/devices/devices.service';
import {
  createDevicesForDeps,
  type DevicesForDepsOptions,
} from '../../server/services/devices/devices.start-hook';
import type { WechatOAuthClient } from '../../server/wechat/oauth';
import type { WechatPayClient } from '../../server/wechat/pay';
import type { Wechat } from '../../server/wechat/types';
import { listenOnLoopback, recordingReceiver, signInMember, type Receiver } from './test-app.parts';
import { createTestDb } from './test-db';

export {
  asStaff,
  bearer,
  browserOf,
  local,
  postJson,
  sendJson,
  signInMember,
  withCookie,
} from './test-app.parts';
export type { Received } from './test-app.parts';

export interface WechatTestOptions {
  /** Sandbox queue polling period in ms (default 10). */
  pollMs?: number;
  /** Compresses WeChat's retry schedule (default 0.001). */
  retryFactor?: number;
  receiverTimeoutMs?: number;
  /** The sandbox's clock in ms (default: the app's clock). */
  now?: () => number;
  /** Notifications go to a recording receiver (`received`) instead of the app; needs `listen`. */
  receiver?: boolean;
}

export interface TestAppOptions {
  /** The demo seed (default true); base data is always there. */
  seed?: boolean;
  env?: EnvInput;
  deps?: Partial<AppDeps>;
  wechat?: boolean | WechatTestOptions;
  devices?: boolean | (DevicesForDepsOptions & { online?: boolean });
  listen?: boolean;
}

export interface BaseTestApp {
  app: Hono<AppEnv>;
  deps: AppDeps;
  database: Database;
  /** The app's origin (PUBLIC_URL). */
  publicUrl: string;
  /** Moves the clock used by the app (tokens, limiter, dashboard, sessions). */
  advance(ms: number): void;
  request(path: string, init?: RequestInit): Promise<Response>;
  json<T = unknown>(path: string, init?: RequestInit): Promise<{ status: number; body: T; res: Response }>;
  /** Signs in a staff account (demo password demo1234) and returns its bearer token. */
  login(username: string, password?: string): Promise<string>;
  /** Waits for the sandbox's queued notifications and the devices' pending events (each if present). */
  settle(): Promise<void>;
  close(): Promise<void>;
}

/** WeChat on the sandbox: the production client classes, pointed at the sandbox. */
export type SandboxWechat = Wechat & { oauth: WechatOAuthClient; pay: WechatPayClient };

export interface WechatParts {
  deps: AppDeps & { wechat: Wechat; refunds: RefundWorker };
  wechat: SandboxWechat;
  /** The refund outbox worker (no timer: `settle()` runs its passes). */
  refunds: RefundWorker;
  /** The sandbox behind `wechat` (keys, client configurations, cashier, notifications). */
  sandbox: WechatSandbox;
  /** A member (created on first use, as the first WeChat sign-in does) with a live session; returns its cookie. */
  signIn(openid: string): Promise<{ cookie: string; member_id: number }>;
}

export interface DevicesParts {
  deps: AppDeps & { devices: DevicesService };
  devices: DevicesService;
}

type Has<O, K extends string> = O extends { [P in K]: infer V }
  ? [V] extends [false | undefined]
    ? false
    : true
  : false;
type ReceiverOn<O> = O extends { wechat: { receiver: true } } ? true : false;

/** The parts of the member and money suites: the WeChat sandbox in process and the devices simulator. */
export const WORLD = { wechat: true, devices: true } as const;
/** The same with every device online (its first heartbeat seen) before the first test: the money suites. */
export const ONLINE_WORLD = { wechat: true, devices: { online: true } } as const;
/** An app with the WeChat sandbox and the devices simulator. */
export type TestWorld = TestApp<typeof WORLD>;

export type TestApp<O extends TestAppOptions = TestAppOptions> = BaseTestApp &
  (Has<O, 'wechat'> extends true ? WechatParts : Partial<WechatParts>) &
  (Has<O, 'devices'> extends true ? DevicesParts : Partial<DevicesParts>) &
  (ReceiverOn<O> extends true ? Receiver : Partial<Receiver>);

const MAX_SETTLE_MS = 10_000;

export async function createTestApp<const O extends TestAppOptions = Record<never, never>>(
  opts: O = {} as O,
): Promise<TestApp<O>> {
  const wechatOpts: WechatTestOptions | undefined =
    opts.wechat === true ? {} : opts.wechat === false ? undefined : opts.wechat;
  const devicesOpts = opts.devices === true ? {} : opts.devices === false ? undefined : opts.devices;
  if (wechatOpts?.receiver && !opts.listen) throw new Error('wechat.receiver needs listen: true');
  const database = await createTestDb();
  // The app is built last (after the sandbox that calls back into it): reach it through this holder.
  const holder: { app?: Hono<AppEnv> } = {};
  const server = opts.listen ? await listenOnLoopback((req) => holder.app!.fetch(req)) : undefined;
  const receiver = wechatOpts?.receiver ? recordingReceiver(`${server!.origin}/test-receiver`) : undefined;
  const env = parseEnv(
    {
      NODE_ENV: 'test',
      SERVE_CLIENT: false,
      LOG_REQUESTS: false,
      DATA_DIR: 'memory://',
      ...(server ? { PUBLIC_URL: server.origin } : {}),
      ...(receiver ? { WECHAT_NOTIFY_URL: receiver.url, WECHAT_REFUND_NOTIFY_URL: receiver.url } : {}),
      ...opts.env,
    },
    {},
  );
  let offset = 0;
  const now = () => new Date(Date.now() + offset);
  const deps: AppDeps = { db: database.db, env, now, dbKind: database.kind, ...opts.deps };
  await ensureBaseData(deps.db);
  if (opts.seed !== false) await seedDemo(deps.db);
  if (wechatOpts) {
    deps.wechat = await createWechat(
      // The sandbox is asked for explicitly: a test may use a made-up public host (not loopback).
      { ...env, WECHAT_SANDBOX: env.WECHAT_SANDBOX ?? true },
      {
        db: database.db,
        // In process the clients and the notification sender reach the app directly; listening, over HTTP.
        ...(server
          ? {}
          : { fetch: async (input: string, init?: RequestInit) => holder.app!.request(input, init) }),
        now: wechatOpts.now ?? (() => now().getTime()),
        sandbox: {
          pollMs: wechatOpts.pollMs ?? 10,
          retryFactor: wechatOpts.retryFactor ?? 0.001,
          ...(wechatOpts.receiverTimeoutMs ? { receiverTimeoutMs: wechatOpts.receiverTimeoutMs } : {}),
        },
      },
    );
  }
  if (deps.wechat) deps.refunds = createRefundWorker({ db: database.db, pay: deps.wechat.pay, now });
  let stopDevices: (() => Promise<void>) | undefined;
  if (devicesOpts) {
    const { online, ...devicesForDeps } = devicesOpts;
    deps.devices = createDevicesForDeps(deps, {
      simulator: { ackDelayMs: 20 },
      tickMs: 100,
      ...devicesForDeps,
    });
    stopDevices = await deps.devices.start();
    if (online) await deps.devices.settle();
  }
  deps.mounts ??= [...sandboxMounts(deps), ...(receiver ? [receiver.mount] : [])];
  const app = createApp(deps);
  holder.app = app;
  const request = async (path: string, init?: RequestInit) => app.request(path, init);
  const json = async <T>(path: string, init?: RequestInit) => {
    const res = await request(path, init);
    const text = await res.text();
    const out = { status: res.status, body: (text ? JSON.parse(text) : null) as T } as {
      status: number;
      body: T;
      res: Response;
    };
    // Not enumerable: `expect(await t.json(...)).toEqual({ status, body })` compares the answer only.
    return Object.defineProperty(out, 'res', { value: res, enumerable: false });
  };
  const wechat = deps.wechat;
  const t: BaseTestApp &
    Partial<Omit<WechatParts, 'deps'>> &
    Partial<Omit<DevicesParts, 'deps'>> &
    Partial<Receiver> = {
    app,
    deps,
    database,
    publicUrl: env.PUBLIC_URL,
    advance: (ms) => {
      offset += ms;
    },
    request,
    json,
    async login(username, password = 'demo1234') {
      const { status, body } = await json<{ token: string }>('/backend/auth/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username, password }),
      });
      if (status !== 200) throw new Error(`login ${username} failed: ${status} ${JSON.stringify(body)}`);
      return body.token;
    },
    async settle() {
      // Notifications first (they may start devices), then every `starting` session acknowledged or refused.
      const deadline = Date.now() + MAX_SETTLE_MS;
      for (;;) {
        await wechat?.sandbox?.drainNotifications();
        await deps.devices?.settle();
        // Then the refunds that decided, sent to the sandbox, and their notifications delivered.
        if (deps.refunds) {
          await deps.refunds.kick();
          await wechat?.sandbox?.drainNotifications();
        }
        if (!deps.devices && !deps.refunds) return;
        const [row] = await database.db
          .select({ n: count() })
          .from(device_sessions)
          .where(eq(device_sessions.status, 'starting'));
        const [due] = await database.db
          .select({ n: count() })
          .from(wechat_refunds)
          .where(and(eq(wechat_refunds.status, 'pending'), lte(wechat_refunds.next_attempt_at, now())));
        if (((row?.n ?? 0) === 0 && (due?.n ?? 0) === 0) || Date.now() > deadline) return;
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async close() {
      await stopDevices?.();
      await wechat?.sandbox?.stop();
      await server?.close();
      await database.close();
    },
  };
  receiver?.attach(t);
  if (wechat) {
    t.wechat = wechat as SandboxWechat;
    t.refunds = deps.refunds!;
    // createSandboxWechat hands the whole sandbox as the handle; tests use its keys and client configurations.
    t.sandbox = wechat.sandbox as WechatSandbox;
    t.signIn = async (openid) => {
      const cookie = await signInMember(app, openid);
      const [m] = await database.db
        .select({ id: members.id })
        .from(members)
        .where(eq(members.openid, openid));
      if (!m) throw new Error(`member ${openid} was not created by the sign-in`);
      return { cookie, member_id: m.id };
    };
  }
  if (deps.devices) t.devices = deps.devices;
  return t as unknown as TestApp<O>;
}
