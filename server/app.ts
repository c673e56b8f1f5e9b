/**
 * The Hono application: cross-cutting middleware (request id + log line, body limit, security headers), every
 * `/backend/*` router, the error and not-found shapes, and (when SERVE_CLIENT) the built client with history fallback.
 * Built from `AppDeps` only, so tests run it in-process with `app.request(...)` against a real database.
 */
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { AppDeps, AppEnv } from './context';
import { authRoutes } from './auth/auth.routes';
import { permissionsRoutes } from './auth/permissions.routes';
import { productsRoutes } from './routes/products/products.routes';
import { devicesRoutes } from './routes/devices/devices.routes';
import { venuesRoutes } from './routes/venues/venues.routes';
import { packagesRoutes } from './routes/packages/packages.routes';
import { walletRoutes } from './routes/wallet/wallet.routes';
import { adminWithdrawalsRoutes, merchantWithdrawalsRoutes } from './routes/withdrawals/withdrawals.routes';
import { merchantsRoutes } from './routes/merchants/merchants.routes';
import { employeeRoutes } from './routes/employee/employee.routes';
import { deviceControlRoutes } from './routes/device-control/device-control.routes';
import { dashboardRoutes } from './dashboard/dashboard.routes';
import { dailyRoutes, reportsRoutes } from './routes/reports/reports.routes';
import { healthRoutes } from './health/health.routes';
import { compressJson } from './lib/compression';
import { inputGuard } from './lib/input-guard.middleware';
import { API_LIMIT, OAUTH_LIMIT, RateLimiter, rateLimit } from './lib/rate-limit.middleware';
import { payloadTooLarge, renderError } from './lib/errors';
import { requestLog } from './lib/request-log.middleware';
import { securityHeaders } from './lib/security-headers.middleware';
import { inlineScriptHashes, serveClient } from './lib/static';
import { queryRoutes } from './api/query.routes';
import { payRoutes } from './user/pay.routes';
import { notifyRoutes } from './wechat-notify/notify.routes';
import { publicRoutes } from './api/public.routes';
import { memberRoutes } from './member/member.routes';
import { devicesSandboxRoutes } from './services/devices/devices-sandbox.routes';
import { feedbackRoutes } from './user/feedback.routes';
import { usingRoutes } from './user/using.routes';

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
    bodyLimit({ maxSize: MAX_BODY_BYTES, onError: (c) => renderError(payloadTooLarge(), c) }),
  );
  app.use('/backend/*', inputGuard());
  app.use('/backend/*', compressJson());
  // API answers are per user and change with every write: never cache them in between.
  app.use('/backend/*', async (c, next) => {
    await next();
    if (!c.res.headers.has('Cache-Control')) c.header('Cache-Control', 'no-store');
  });

  // Anonymous endpoints: per-address limits before any route touches the database (docs/security.md).
  const limiter = new RateLimiter();
  app.use('/backend/api/*', rateLimit(API_LIMIT, limiter));
  app.use('/backend/sandbox/*', rateLimit(API_LIMIT, limiter));
  app.use('/backend/wechat/authorize', rateLimit(OAUTH_LIMIT, limiter));
  app.use('/backend/wechat/callback', rateLimit(OAUTH_LIMIT, limiter));

  // ---------------------------------------------------------------- foundation (server-core)
  app.route('/backend/health', healthRoutes());
  app.route('/backend/auth', authRoutes());
  app.route('/backend/admin/permissions', permissionsRoutes());
  app.route('/backend/admin/products', productsRoutes());
  // Start and stop first: the devices resource guards all its paths with merchant.devices, employees may start too.
  app.route('/backend/merchant/devices', deviceControlRoutes());
  app.route('/backend/merchant/devices', devicesRoutes());
  app.route('/backend/merchant/venues', venuesRoutes());
  app.route('/backend/merchant/packages', packagesRoutes());
  app.route('/backend/admin/merchants', merchantsRoutes());
  app.route('/backend/dashboard', dashboardRoutes());
  app.route('/backend/reports', reportsRoutes());
  app.route('/backend/daily', dailyRoutes());
  app.route('/backend/wallet', walletRoutes());
  app.route('/backend/merchant/withdrawals', merchantWithdrawalsRoutes());
  app.route('/backend/admin/withdrawals', adminWithdrawalsRoutes());
  app.route('/backend/employee', employeeRoutes());

  // ---------------------------------------------------------------- public, no sign-in: /backend/api
  app.route('/backend/api/query', queryRoutes());
  app.route('/backend/api', publicRoutes());

  // ---------------------------------------------------------------- end users (member cookie): /backend/user
  app.route('/backend/user', payRoutes());
  app.route('/backend/user/using', usingRoutes());
  app.route('/backend/user/feedback', feedbackRoutes());

  // ---------------------------------------------------------------- WeChat sign-in + pay notify: /backend/wechat
  app.route('/backend/wechat/pay', notifyRoutes());
  // member sign-in: /backend/wechat/authorize, /backend/wechat/callback, /backend/user/logout
  app.route('/backend', memberRoutes());

  // ---------------------------------------------------------------- WeChat sandboxes: /backend/sandbox
  if (deps.wechat?.sandboxRoutes) app.route('/backend/sandbox', deps.wechat.sandboxRoutes);
  app.route('/backend/sandbox/devices', devicesSandboxRoutes());

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
