/**
 * Starts the whole server in-process: environment, database (migrations), base + demo data, start hooks, the Hono
 * app on PORT (0 = a free port). Used by `server/main.ts` (npm start), `scripts/dev.ts`, the restart test and the
 * bench. `close()` stops taking requests and waits for those in flight (the HTTP server), then stops the hooks
 * (reverse order) and closes the database, in that order.
 */
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { createApp } from './app';
import type { AppDeps, StartHook } from './context';
import { openDatabase } from './db/client';
import { parseEnv, type EnvInput } from './env';
import { demoInfo, ensureBaseData, formatBanner, seedDemo } from './seed';
import { devicesStartHook } from './services/devices/devices.start-hook';
import { reportRollupStartHook } from './services/report-rollup.start-hook';
import { refundWorkerStartHook } from './services/orders/refund-worker.start-hook';
import { sandboxStartHook } from './sandbox/sandbox.start-hook';
import { wechatStartHook } from './wechat/wechat.start-hook';

/**
 * Background work started with every server (schedulers, the device simulator, ...): add ONE import + ONE entry
 * here. Each hook runs after the DB is ready and before the app is built, so it may also set optional fields on
 * `deps` (e.g. `deps.devices = ...`) that the routers read; it returns its stop function.
 */
const START_HOOKS: StartHook[] = [
  devicesStartHook,
  sandboxStartHook,
  wechatStartHook,
  reportRollupStartHook,
  refundWorkerStartHook,
];

export interface StartOptions {
  /** Extra fields or replacements for AppDeps (tests: a fixed clock, a fake-free but configured gateway, ...). */
  deps?: Partial<AppDeps>;
  /** Print the banner (default true). */
  quiet?: boolean;
}

export interface RunningServer {
  url: string;
  port: number;
  deps: AppDeps;
  close(): Promise<void>;
}

export async function startServer(
  overrides: Partial<EnvInput> = {},
  opts: StartOptions = {},
): Promise<RunningServer> {
  const env = parseEnv(overrides);
  const database = await openDatabase({
    databaseUrl: env.DATABASE_URL,
    dataDir: env.DATA_DIR,
    poolSize: env.DATABASE_POOL_SIZE,
    prepared: env.DATABASE_PREPARED,
  });
  const stops: (() => Promise<void> | void)[] = [];
  const listener: Listener = { fetch: starting };
  // Requests first, then the background work they rely on: a pay accepted while the server stops has its device's
  // start command sent by the devices service, which is still running until the last request is answered.
  let closing: Promise<void> | undefined;
  const closeAll = () =>
    (closing ??= (async () => {
      listener.fetch = stopping;
      await closeServer(listener);
      await runStops(stops);
      await database.close();
    })());

  try {
    // Listen first: the real port (PORT=0 picks one) is then known to the hooks (PUBLIC_URL, notify URLs). Until the
    // app is ready every request answers 503, which is what a load balancer's health check should see.
    const port = await listen(listener, env.PORT, env.HOST);
    const url = `http://localhost:${port}`;
    if (env.PORT === 0 && !(overrides.PUBLIC_URL ?? process.env.PUBLIC_URL)) {
      // A random port: the default public URL must name the port actually used.
      env.PUBLIC_URL = url;
    }

    const deps: AppDeps = {
      db: database.db,
      env,
      now: () => new Date(),
      dbKind: database.kind,
      ...opts.deps,
    };
    await ensureBaseData(deps.db);
    if (env.SEED === 'demo') await seedDemo(deps.db);
    for (const hook of [...START_HOOKS, ...(deps.onStart ?? [])]) {
      const stop = await hook(deps);
      if (stop) stops.push(stop);
    }
    const app = createApp(deps);
    listener.fetch = (req, bindings) => app.fetch(req, bindings);
    if (!opts.quiet) await printBanner(deps, url, database);
    return { url, port, deps, close: closeAll };
  } catch (err) {
    await closeAll();
    throw err;
  }
}

type Fetch = (req: Request, env: unknown) => Response | Promise<Response>;

/** The HTTP server and what answers its requests (the 503 of `starting` until the app is built). */
interface Listener {
  fetch: Fetch;
  server?: ServerType | undefined;
}

/** A 503 the client or load balancer retries after a second (on another instance, or once this one is ready). */
const unavailable =
  (code: string, message: string, headers: Record<string, string> = {}): Fetch =>
  () =>
    new Response(JSON.stringify({ code, message }), {
      status: 503,
      headers: { 'content-type': 'application/json; charset=utf-8', 'retry-after': '1', ...headers },
    });

/** Until the app is built. */
const starting = unavailable('STARTING', '服务正在启动，请稍后再试');

/** Once the server stops, for a request on a connection opened before; the connection is closed after it. */
const stopping = unavailable('STOPPING', '服务正在重启，请稍后再试', { connection: 'close' });

/** Serves `listener.fetch` on the port (0 = any free one) and resolves with the port actually used. */
function listen(listener: Listener, port: number, hostname: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const s = serve(
      { fetch: (req, bindings) => listener.fetch(req, bindings), port, hostname },
      (info: AddressInfo) => resolve(info.port),
    );
    s.once('error', reject);
    listener.server = s;
  });
}

/** Runs the start hooks' stop functions, last started first; a failing one is logged and the others still run. */
async function runStops(stops: (() => Promise<void> | void)[]): Promise<void> {
  for (const stop of stops.reverse()) {
    try {
      await stop();
    } catch (err) {
      console.error('stop hook failed:', err);
    }
  }
  stops.length = 0;
}

/**
 * Closes the HTTP server once: no new connections; idle keep-alive connections at once, the others as soon as
 * their request is answered; a request not answered within 2 s has its connection cut.
 */
async function closeServer(listener: Listener): Promise<void> {
  const s = listener.server;
  if (!s) return;
  listener.server = undefined;
  const server = s as unknown as { closeIdleConnections(): void; closeAllConnections(): void };
  await new Promise<void>((resolve) => {
    // Keep-alive connections would hold close() open: the idle ones are closed now, and each one whose request was
    // in flight as soon as it is idle again (checked every 25 ms); a request in flight has 2 s to be answered before
    // its connection is cut.
    const idle = setInterval(() => server.closeIdleConnections(), 25);
    const cut = setTimeout(() => server.closeAllConnections(), 2000);
    s.close(() => {
      clearInterval(idle);
      clearTimeout(cut);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/** The start-up banner: the demo accounts and pay links (with the demo seed), and where the data lives. */
async function printBanner(deps: AppDeps, url: string, database: { kind: string }): Promise<void> {
  const { env } = deps;
  const info = env.SEED === 'demo' ? await demoInfo(deps.db, env.PUBLIC_URL) : { accounts: [], devices: [] };
  console.log(
    formatBanner(info, url) +
      `\nDatabase: ${database.kind}${database.kind === 'pglite' ? ` in ${env.DATA_DIR}` : ''}`,
  );
}
