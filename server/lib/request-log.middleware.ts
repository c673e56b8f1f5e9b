/**
 * Request id and the one log line per request (`method path status ms id`). The id comes from a sane incoming
 * X-Request-Id (a proxy's) or is generated, and is echoed back so a user's report can be matched to the log.
 */
import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../context';

export function requestLog(opts: { log: boolean }): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const incoming = c.req.header('x-request-id');
    const id = incoming && /^[A-Za-z0-9._-]{1,64}$/.test(incoming) ? incoming : randomUUID().slice(0, 8);
    c.set('request_id', id);
    const started = performance.now();
    // Before the handler, so the answer it builds carries the id (docs/performance.md, "Headers before the answer").
    c.header('X-Request-Id', id);
    try {
      await next();
    } finally {
      if (c.res.headers.get('X-Request-Id') !== id) c.header('X-Request-Id', id);
      if (opts.log) {
        const ms = (performance.now() - started).toFixed(1);
        console.log(`${c.req.method} ${c.req.path} ${c.res.status} ${ms}ms ${id}`);
      }
    }
  };
}
