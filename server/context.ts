/**
 * What every request handler can reach. `AppDeps` is built once by `startServer` (or by a test) and put on the
 * context as `c.var.deps`; parts of the server add OPTIONAL fields here (wechat, devices, ...) so tests that do
 * not need them can leave them out.
 */
import type { Hono } from 'hono';
import type { Db } from './db/client';
import type { Env } from './env';
import type { Wechat } from './wechat/types';

/**
 * A start hook: runs after the DB is open, migrated and seeded, before the server listens. Return a stop function
 * (awaited on close, in reverse order) for background work such as schedulers and the device simulator.
 */
export type StartHook = (
  deps: AppDeps,
) => void | (() => Promise<void> | void) | Promise<void | (() => Promise<void> | void)>;

/** A router a start hook hands to the app, mounted at `path` (the sandboxes). */
export interface Mount {
  path: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  routes: Hono<any>;
}

export interface AppDeps {
  db: Db;
  env: Env;
  /** The clock; tests move it to expire tokens and sessions. */
  now: () => Date;
  /** 'pglite' or 'postgres' (health reports it). */
  dbKind?: 'pglite' | 'postgres';
  /** Background work started with the server and stopped on close; see StartHook. */
  onStart?: StartHook[];
  /** Routers added by start hooks (the sandboxes), mounted by the app in order. */
  mounts?: Mount[];
  /** Where the built client is (default `dist/`); tests point it at a temp dir. */
  clientDir?: string;
  // Optional parts (each built by its start hook; tests that do not need one leave it out):
  /** WeChat sign-in + Pay clients (live or sandbox), built by the wechat start hook (server/wechat/config.ts). */
  wechat?: Wechat;
}

export type StaffRole = 'admin' | 'merchant' | 'partner' | 'employee';

/** The signed-in staff account, resolved from the bearer token only (never from X-UserLevel / X-MerchantID). */
export type StaffAuth = {
  account_id: number;
  level: number;
  role: StaffRole;
  merchant_id: number | null;
  name: string;
  features: Set<string>;
  /** Id of the auth_tokens row (logout revokes it). */
  token_id?: number;
};

export type AppEnv = {
  Variables: {
    deps: AppDeps;
    staff?: StaffAuth;
    member_id?: number;
    /** The member's session cookie's token hash, before it is resolved (`memberSession()`). */
    member_session?: string;
    request_id: string;
  };
};
