/**
 * Starts the whole server in-process: environment, database (migrations), base + demo data, start hooks, the Hono
 * app on PORT (0 = a free port). Used by `server/main.ts` (npm start), `scripts/dev.ts`, the restart test and the
 * bench. `close()` stops hooks (reverse order), the HTTP server and the database, in that order.
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
  });
  const stops: (() => Promise<void> | void)[] = [];
  let server: ServerType | undefined;
  const closeAll = async () => {
    for (const stop of stops.reverse()) {
      try {
        await stop();
      } catch (err) {
        console.error('stop hook failed:', err);
      }
    }
    stops.length = 0;
    if (server) {
      const s = server;
      server = undefined;
      await new Promise<void>((resolve) => {
        s.close(() => resolve());
        // Keep-alive connections would hold close() open; requests in flight have already been answered or will be cut.
        (s as unknown as { closeIdleConnections?: () => void }).closeIdleConnections?.();
        setTimeout(
          () => (s as unknown as { closeAllConnections?: () => void }).closeAllConnections?.(),
          2000,
        ).unref();
      });
    }
    await database.close();
  };

  try {
    // Listen first: the real port (PORT=0 picks one) is then known to the hooks (PUBLIC_URL, notify URLs). Until the
    // app is ready every request answers 503, which is what a load balancer's health check should see.
    let appFetch: (req: Request, env: unknown) => Response | Promise<Response> = () =>
      new Response(JSON.stringify({ code: 'STARTING', message: '服务正在启动，请稍后再试' }), {
        status: 503,
        headers: { 'content-type': 'application/json; charset=utf-8', 'retry-after': '1' },
      });
    const port = await new Promise<number>((resolve, reject) => {
      const s = serve(
        { fetch: (req, bindings) => appFetch(req, bindings), port: env.PORT, hostname: env.HOST },
        (info: AddressInfo) => resolve(info.port),
      );
      s.once('error', reject);
      server = s;
    });
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
    appFetch = (req, bindings) => app.fetch(req, bindings);
    if (!opts.quiet) {
      const info =
        env.SEED === 'demo' ? await demoInfo(deps.db, deps.env.PUBLIC_URL) : { accounts: [], devices: [] };
      console.log(
        formatBanner(info, url) +
          `\nDatabase: ${database.kind}${database.kind === 'pglite' ? ` in ${env.DATA_DIR}` : ''}`,
      );
    }
    return { url, port, deps, close: closeAll };
  } catch (err) {
    await closeAll();
    throw err;
  }
}
