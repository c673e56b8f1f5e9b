/**
 * The ceiling on a request body. hono's `bodyLimit` first reads `c.req.raw.body`, which makes the node adapter build
 * a full Request (undici's) for every request, GETs included. Without `Transfer-Encoding` a body is exactly its
 * `Content-Length` (Node's parser holds the client to it), so the header decides here. A chunked body, or one of
 * no stated length (a Request made in-process), is counted as it arrives, by hono's middleware.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';

const NO_BODY = new Set(['GET', 'HEAD']);

export function limitBody(
  maxSize: number,
  onError: (c: Context) => Response | Promise<Response>,
): MiddlewareHandler {
  const chunked = bodyLimit({ maxSize, onError });
  return async (c, next) => {
    const length = c.req.header('content-length');
    if (length === undefined || c.req.header('transfer-encoding') !== undefined) {
      return NO_BODY.has(c.req.method) ? next() : chunked(c, next);
    }
    if (Number.parseInt(length, 10) > maxSize) return onError(c);
    await next();
  };
}
