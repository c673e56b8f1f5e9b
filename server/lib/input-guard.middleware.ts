/**
 * The edge every `/backend` request passes before any route (docs/security.md):
 * - a NUL character anywhere in the URL or in a JSON or form body is refused (400 NUL_CHARACTER): PostgreSQL text
 *   cannot hold one, so it would otherwise surface as a 500 deep inside a route;
 * - writes authenticated by the member cookie (`/backend/user/...`) must come from this site: a browser's
 *   `Sec-Fetch-Site` of `cross-site`/`same-site` or an `Origin` other than ours is refused (403 CROSS_SITE), so a
 *   form on another site cannot spend a signed-in member's money (CSRF). Clients that send neither header (a
 *   mini-program, a partner's server) are not browsers and pass.
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../context';
import { HttpError } from './errors';

const WRITE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const NUL = String.fromCharCode(0);
/** A NUL as a percent escape or as the raw character. */
const hasNulEscaped = (text: string) => /%00/i.test(text) || text.includes(NUL);
/** A NUL as a JSON escape or as the raw character. */
const hasNulInJson = (text: string) => /\\u0000/i.test(text) || text.includes(NUL);

const nulRefused = () => new HttpError(400, 'NUL_CHARACTER', '请求中含有不允许的空字符（\\u0000）');

/** Origins this server answers as: PUBLIC_URL's, and the one the request itself was sent to. */
function ownOrigins(c: Context<AppEnv>): string[] {
  const origins = [new URL(c.req.url).origin];
  try {
    origins.push(new URL(c.var.deps.env.PUBLIC_URL).origin);
  } catch {
    // PUBLIC_URL is checked at start-up; nothing to add.
  }
  return origins;
}

export function inputGuard(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (hasNulEscaped(c.req.url)) throw nulRefused();
    if (WRITE.has(c.req.method)) {
      const type = (c.req.header('content-type') ?? '').toLowerCase();
      if (/json/.test(type)) {
        if (hasNulInJson(await c.req.text())) throw nulRefused();
      } else if (type.startsWith('application/x-www-form-urlencoded') || type.startsWith('text/')) {
        if (hasNulEscaped(await c.req.text())) throw nulRefused();
      }
      if (c.req.path.startsWith('/backend/user/')) {
        const site = c.req.header('sec-fetch-site');
        const origin = c.req.header('origin');
        const crossSite = site === 'cross-site' || site === 'same-site';
        if (crossSite || (origin !== undefined && !ownOrigins(c).includes(origin))) {
          throw new HttpError(403, 'CROSS_SITE', '请求来源不是本站，已拒绝');
        }
      }
    }
    await next();
  };
}
