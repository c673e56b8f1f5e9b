/**
 * `requireMember()`: the gate of every `/backend/user/...` route. Resolves the member from the HttpOnly `sid`
 * cookie only (never from headers the client could set) and puts the id on `c.var.member_id`; without a valid
 * session it answers 401 WECHAT_AUTH_REQUIRED, which the client turns into a WeChat sign-in (docs/decisions.md D2).
 */
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import type { AppEnv } from '../context';
import { HttpError } from '../lib/errors';
import { MEMBER_COOKIE, memberIdForToken } from './member-sessions';

export const WECHAT_AUTH_REQUIRED = { code: 'WECHAT_AUTH_REQUIRED', message: '需要微信授权' } as const;

export function requireMember(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const token = getCookie(c, MEMBER_COOKIE);
    const { db, now } = c.var.deps;
    const memberId = token ? await memberIdForToken(db, token, now()) : null;
    if (memberId === null) return c.json(WECHAT_AUTH_REQUIRED, 401);
    c.set('member_id', memberId);
    await next();
  };
}

/** The signed-in member's id inside a route behind `requireMember()`. */
export function memberOf(c: Context<AppEnv>): number {
  const id = c.var.member_id;
  if (id === undefined) throw new HttpError(401, WECHAT_AUTH_REQUIRED.code, WECHAT_AUTH_REQUIRED.message);
  return id;
}
