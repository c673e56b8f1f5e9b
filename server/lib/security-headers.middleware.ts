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

export function securityHeaders(scriptSources: () => string[] = () => []): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    const isHtml = c.res.headers.get('content-type')?.startsWith('text/html') ?? false;
    c.header(
      'Content-Security-Policy',
      isHtml ? contentSecurityPolicy(scriptSources()) : CONTENT_SECURITY_POLICY,
    );
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('X-Frame-Options', 'DENY');
    c.header('Referrer-Policy', 'same-origin');
    c.header('Cross-Origin-Opener-Policy', 'same-origin');
  };
}
