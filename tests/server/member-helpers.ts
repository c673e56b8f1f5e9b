/**
 * Member sign-in for server tests, through the real sandbox OAuth flow: `/backend/wechat/authorize` with
 * `sandbox_openid` -> the sandbox's authorize page (approves at once) -> `/backend/wechat/callback` -> the `sid`
 * cookie. `createMemberTestApp()` builds the in-process app with the WeChat sandbox and the device simulator on a
 * fresh test DB (the sandbox's HTTP calls go back into the same app through `app.request`).
 */
import type { Hono } from 'hono';
import { createApp } from '../../server/app';
import type { AppDeps, AppEnv } from '../../server/context';
import { parseEnv, type EnvInput } from '../../server/env';
import { ensureBaseData, seedDemo } from '../../server/seed';
import {
  createDevicesForDeps,
  type DevicesForDepsOptions,
} from '../../server/services/devices/devices.start-hook';
import { sandboxMounts } from '../../server/sandbox/sandbox.start-hook';
import { createWechat } from '../../server/sandbox/wechat-sandbox';
import type { Wechat } from '../../server/wechat/types';
import type { Database } from '../../server/db/client';
import { createTestDb } from './test-db';

type Requester = { request: (path: string, init?: RequestInit) => Response | Promise<Response> };

/** Path + query of an absolute or relative URL, without the `#wechat_redirect` fragment. */
function local(url: string): string {
  const u = new URL(url, 'http://localhost');
  return `${u.pathname}${u.search}`;
}

/**
 * Signs `openid` in through the sandbox and returns the Cookie header value (`sid=...`). Throws with the step and
 * status when any hop does not redirect as the protocol says.
 */
export async function signInMember(
  app: Requester,
  openid: string,
  redirect = '/user/profile',
): Promise<string> {
  const start = await app.request(
    `/backend/wechat/authorize?redirect=${encodeURIComponent(redirect)}&sandbox_openid=${encodeURIComponent(openid)}`,
  );
  if (start.status !== 302) throw new Error(`authorize: ${start.status} ${await start.text()}`);
  const toWechat = start.headers.get('location')!;
  const approved = await app.request(local(toWechat));
  if (approved.status !== 302)
    throw new Error(`sandbox authorize: ${approved.status} ${await approved.text()}`);
  const callback = await app.request(local(approved.headers.get('location')!), browserOf(start));
  if (callback.status !== 302) throw new Error(`callback: ${callback.status} ${await callback.text()}`);
  const sid = /(?:^|,\s*)sid=([^;]+)/.exec(callback.headers.get('set-cookie') ?? '');
  if (!sid) throw new Error('callback set no sid cookie');
  return `sid=${sid[1]}`;
}

export interface MemberTestApp {
  app: Hono<AppEnv>;
  deps: AppDeps & { wechat: Wechat };
  database: Database;
  request(path: string, init?: RequestInit): Promise<Response>;
  json<T = unknown>(path: string, init?: RequestInit): Promise<{ status: number; body: T; res: Response }>;
  /** Moves the app's clock. */
  advance(ms: number): void;
  close(): Promise<void>;
}

export async function createMemberTestApp(
  opts: { env?: EnvInput; devices?: DevicesForDepsOptions; seed?: boolean } = {},
): Promise<MemberTestApp> {
  const database = await createTestDb();
  const env = parseEnv(
    { NODE_ENV: 'test', SERVE_CLIENT: false, LOG_REQUESTS: false, DATA_DIR: 'memory://', ...opts.env },
    {},
  );
  let offset = 0;
  const now = () => new Date(Date.now() + offset);
  // The sandbox calls back into the app, which is built after it: reach it through this holder.
  const holder: { app?: Hono<AppEnv> } = {};
  const fetch = async (input: string, init?: RequestInit) => holder.app!.request(input, init);
  const wechat = await createWechat(env, {
    db: database.db,
    fetch,
    now: () => now().getTime(),
    sandbox: { pollMs: 20, retryFactor: 0.001 },
  });
  const deps = { db: database.db, env, now, dbKind: database.kind, wechat } as AppDeps & { wechat: Wechat };
  await ensureBaseData(deps.db);
  if (opts.seed !== false) await seedDemo(deps.db);
  deps.devices = createDevicesForDeps(deps, { simulator: { ackDelayMs: 20 }, tickMs: 100, ...opts.devices });
  const stopDevices = await deps.devices.start();
  deps.mounts = sandboxMounts(deps);
  const app = createApp(deps);
  holder.app = app;
  const request = async (path: string, init?: RequestInit) => app.request(path, init);
  return {
    app,
    deps,
    database,
    request,
    async json<T>(path: string, init?: RequestInit) {
      const res = await request(path, init);
      const text = await res.text();
      return { status: res.status, body: (text ? JSON.parse(text) : null) as T, res };
    },
    advance(ms) {
      offset += ms;
    },
    async close() {
      await stopDevices();
      wechat.sandbox?.stop();
      await database.close();
    },
  };
}

/**
 * The starting browser's `wx_oauth` cookie from an authorize answer, as a request init: the callback must carry it
 * (the state is bound to the browser that started the sign-in).
 */
export function browserOf(authorize: Response): RequestInit {
  const m = /(?:^|,\s*)wx_oauth=([^;]+)/.exec(authorize.headers.get('set-cookie') ?? '');
  if (!m) throw new Error('authorize set no wx_oauth cookie');
  return { headers: { cookie: `wx_oauth=${m[1]}` } };
}

export const withCookie = (cookie: string, init: RequestInit = {}): RequestInit => ({
  ...init,
  headers: { ...(init.headers as Record<string, string> | undefined), cookie },
});
