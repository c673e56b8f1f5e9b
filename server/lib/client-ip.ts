/**
 * The caller's address: the socket's, or behind a trusted proxy (TRUST_PROXY) the last X-Forwarded-For entry,
 * which that proxy wrote (docs/security.md). 'local' when there is no socket (in-process tests).
 */
import type { Context } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { AppEnv } from '../context';

export function clientIp(c: Context<AppEnv>): string {
  if (c.var.deps.env.TRUST_PROXY) {
    const last = c.req.header('x-forwarded-for')?.split(',').pop()?.trim();
    if (last && /^[0-9a-fA-F:.]{2,45}$/.test(last)) return last;
  }
  try {
    return getConnInfo(c).remote.address ?? 'local';
  } catch {
    return 'local';
  }
}
