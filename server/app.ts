/**
 * The Hono application: cross-cutting middleware (request id + log line, body limit, security headers), every
 * `/backend/*` router, the error and not-found shapes, and (when SERVE_CLIENT) the built client with history fallback.
 * Built from `AppDeps` only, so tests run it in-process with `app.request(...)` against a real database.
 */
import { Hono } from 'hono';
import type { AppDeps, AppEnv } from './context';
import { ROUTES } from './routes';
import { limitBody } from './lib/body-limit.middleware';
import { compressJson } from './lib/compression';
import { inputGuard } from './lib/input-guard.middleware';
import { API_LIMIT, OAUTH_LIMIT, RateLimiter, rateLimit } from './lib/rate-limit.middleware';
import { payloadTooLarge, renderError } from './lib/errors';
import { requestLog } from './lib/request-log.middleware';
import { securityHeaders } from './lib/security-headers.middleware';
import { inlineScriptHashes, serveClient } from './lib/static';

/** Ceiling for any request body on the API; JSON endpoints apply a smaller one in parseJson. */
export const MAX_BODY_BYTES = 1024 * 1024;

export function createApp(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.use('*', requestLog({ log: deps.env.LOG_REQUESTS }));
  app.use('*', async (c, next) => {
    c.set('deps', deps);
    await next();
  });
  if (deps.env.NODE_ENV === 'production') {
    app.use(
      '*',
      securityHeaders(() => (deps.env.SERVE_CLIENT ? inlineScriptHashes(deps.clientDir) : [])),
    );
  }
  app.use(
    '/backend/*',
    limitBody(MAX_BODY_BYTES, (c) => renderError(payloadTooLarge(), c)),
  );
  app.use('/backend/*', inputGuard());
  app.use('/backend/*', compressJson());
  // API answers are per user and change with every write: never cache them in between.
  // Set before the handler (a handler's own Cache-Control replaces it); after it only for an answer built as a
  // Response object of its own (docs/performance.md, "Headers before the answer").
  app.use('/backend/*', async (c, next) => {
    c.header('Cache-Control', 'no-store');
    await next();
    if (!c.res.headers.has('Cache-Control')) c.header('Cache-Control', 'no-store');
  });

  // Anonymous endpoints: per-address limits before any route touches the database (docs/security.md).
  const limiter = new RateLimiter();
  app.use('/backend/api/*', rateLimit(API_LIMIT, limiter));
  app.use('/backend/sandbox/*', rateLimit(API_LIMIT, limiter));
  app.use('/backend/wechat/authorize', rateLimit(OAUTH_LIMIT, limiter));
  app.use('/backend/wechat/callback', rateLimit(OAUTH_LIMIT, limiter));

  for (const [path, router] of ROUTES) app.route(path, router());

  // The sandboxes' routers, handed over by their start hook (server/sandbox/sandbox.start-hook.ts).
  for (const m of deps.mounts ?? []) app.route(m.path, m.routes);

  // ---------------------------------------------------------------- the built client
  if (deps.env.SERVE_CLIENT) {
    app.get('*', async (c, next) => (await serveClient(c, deps.clientDir)) ?? next());
  }

  app.notFound((c) =>
    c.req.path === '/backend' || c.req.path.startsWith('/backend/')
      ? c.json({ code: 'NOT_FOUND', message: '接口不存在' }, 404)
      : c.text('Not Found', 404),
  );
  app.onError((err, c) => renderError(err, c));
  return app;
}
