/**
 * Security headers for production: a CSP that allows only our own scripts (the built client has no inline script),
 * no MIME sniffing, no framing, no referrer leaks of pay links. Pages served by the server itself (e.g. a sandbox
 * cashier) must therefore load their scripts from a file, not inline.
 */
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../context';

export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob: https:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "object-src 'none'",
].join('; ');

export function securityHeaders(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    c.header('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('X-Frame-Options', 'DENY');
    c.header('Referrer-Policy', 'same-origin');
    c.header('Cross-Origin-Opener-Policy', 'same-origin');
  };
}
