/**
 * Security headers for production: a CSP that allows only our own scripts (plus the hashes of index.html's inline ones),
 * no MIME sniffing, no framing, no referrer leaks of pay links. Pages served by the server itself (e.g. a sandbox
 * cashier) must therefore load their scripts from a file, not inline.
 */
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../context';

/** The policy; `scriptSources` adds hashes of the client's inline scripts (see inlineScriptHashes). */
export function contentSecurityPolicy(scriptSources: string[] = []): string {
  return [
    "default-src 'self'",
    ["script-src 'self'", ...scriptSources].join(' '),
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob: https:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "object-src 'none'",
  ].join('; ');
}

export const CONTENT_SECURITY_POLICY = contentSecurityPolicy();

/** What every answer carries; an HTML page's CSP also allows the client's inline scripts (set after the handler). */
const EVERY_ANSWER: [string, string][] = [
  ['Content-Security-Policy', CONTENT_SECURITY_POLICY],
  ['X-Content-Type-Options', 'nosniff'],
  ['X-Frame-Options', 'DENY'],
  ['Referrer-Policy', 'same-origin'],
  ['Cross-Origin-Opener-Policy', 'same-origin'],
];

export function securityHeaders(scriptSources: () => string[] = () => []): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    // Set before the handler, they are part of the answer it builds (docs/performance.md, "Headers before the
    // answer"); set after it, each one would re-create the answer.
    for (const [name, value] of EVERY_ANSWER) c.header(name, value);
    await next();
    const headers = c.res.headers;
    // An answer the handler built as a Response object of its own does not carry them yet.
    if (!headers.has('X-Content-Type-Options'))
      for (const [name, value] of EVERY_ANSWER) c.header(name, value);
    if (headers.get('content-type')?.startsWith('text/html')) {
      c.header('Content-Security-Policy', contentSecurityPolicy(scriptSources()));
    }
  };
}
