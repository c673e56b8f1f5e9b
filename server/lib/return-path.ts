/**
 * The return path after WeChat sign-in must stay on our origin (docs/decisions.md D7: an open redirect on the authorized
 * domain can leak the OAuth code). Only a relative path is accepted: one leading `/`, not `//` or `/\` (browsers
 * read both as another host), no backslashes or control characters anywhere, and resolving it must not leave the
 * origin.
 */
export const MAX_RETURN_PATH = 2048;

export function isSafeReturnPath(p: unknown): p is string {
  if (typeof p !== 'string' || p.length === 0 || p.length > MAX_RETURN_PATH) return false;
  if (!p.startsWith('/') || p.startsWith('//')) return false;
  // eslint-disable-next-line no-control-regex
  if (/[\\\u0000-\u001f\u007f]/.test(p)) return false;
  try {
    const base = 'http://return-path.invalid';
    const u = new URL(p, base);
    return u.origin === base;
  } catch {
    return false;
  }
}

/** A return path the client may ask for: same-origin and relative, else the default. */
export function safeReturnPath(p: unknown, fallback: string): string {
  return isSafeReturnPath(p) ? p : fallback;
}
