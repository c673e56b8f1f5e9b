/**
 * The app in-process on a fresh test database (PGlite, or PostgreSQL with TEST_DATABASE_URL), with base data and
 * optionally the demo seed, a movable clock and a `login()` helper. Requests go through `app.request(...)`: the real
 * Hono app, real middleware, real DB.
 */
import type { Hono } from 'hono';
import { createApp } from '../../server/app';
import type { AppDeps, AppEnv } from '../../server/context';
import { parseEnv, type EnvInput } from '../../server/env';
import { sandboxMounts } from '../../server/sandbox/sandbox.start-hook';
import { ensureBaseData, seedDemo } from '../../server/seed';
import { createTestDb } from './test-db';

export interface TestApp {
  app: Hono<AppEnv>;
  deps: AppDeps;
  /** Moves the clock used by the app (tokens, limiter, dashboard). */
  advance(ms: number): void;
  request(path: string, init?: RequestInit): Promise<Response>;
  json<T = unknown>(path: string, init?: RequestInit): Promise<{ status: number; body: T; res: Response }>;
  /** Signs in a demo account (password demo1234) and returns its bearer token. */
  login(username: string, password?: string): Promise<string>;
  close(): Promise<void>;
}

export async function createTestApp(
  opts: { seed?: boolean; env?: EnvInput; deps?: Partial<AppDeps> } = {},
): Promise<TestApp> {
  const database = await createTestDb();
  const env = parseEnv(
    { NODE_ENV: 'test', SERVE_CLIENT: false, LOG_REQUESTS: false, DATA_DIR: 'memory://', ...opts.env },
    {},
  );
  let offset = 0;
  const deps: AppDeps = {
    db: database.db,
    env,
    now: () => new Date(Date.now() + offset),
    dbKind: database.kind,
    ...opts.deps,
  };
  await ensureBaseData(deps.db);
  if (opts.seed !== false) await seedDemo(deps.db);
  deps.mounts ??= sandboxMounts(deps);
  const app = createApp(deps);
  const request = async (path: string, init?: RequestInit) => app.request(path, init);
  const json = async <T>(path: string, init?: RequestInit) => {
    const res = await request(path, init);
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as T, res };
  };
  return {
    app,
    deps,
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
    close: () => database.close(),
  };
}

export const bearer = (token: string, extra: Record<string, string> = {}): RequestInit => ({
  headers: { authorization: `Bearer ${token}`, ...extra },
});

export const postJson = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

/** `init` sent as the staff account of `token` (its headers kept). */
export const asStaff = (token: string, init: RequestInit = {}): RequestInit => ({
  ...init,
  headers: {
    ...(init.headers as Record<string, string>),
    ...(bearer(token).headers as Record<string, string>),
  },
});

/** A JSON body sent with `method` (PUT, DELETE, ...). */
export const sendJson = (method: string, body: unknown): RequestInit => ({ ...postJson(body), method });
