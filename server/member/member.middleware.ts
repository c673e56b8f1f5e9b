/**
 * `requireMember()`: the gate of every `/backend/user/...` route. Resolves the member from the HttpOnly `sid`
 * cookie only (never from headers the client could set) and puts the id on `c.var.member_id`; without a valid
 * session it answers 401 WECHAT_AUTH_REQUIRED, which the client turns into a WeChat sign-in (docs/decisions.md D2).
 * `POST /backend/user/pay` has `memberSession()` instead: the same cookie and answers, the session resolved by the
 * pay itself (docs/decisions.md D31).
 */
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import type { AppEnv } from '../context';
import {
  MEMBER_COOKIE,
  WECHAT_AUTH_REQUIRED,
  memberIdForHash,
  memberSessionRequired,
  sessionHashOf,
} from './member-sessions';

export function requireMember(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const hash = sessionHashOf(getCookie(c, MEMBER_COOKIE));
    const { db, now } = c.var.deps;
    const memberId = hash === null ? null : await memberIdForHash(db, hash, now());
    if (memberId === null) return c.json(WECHAT_AUTH_REQUIRED, 401);
    c.set('member_id', memberId);
    await next();
  };
}

/**
 * The gate of `POST /backend/user/pay` (docs/decisions.md D31): a request without a session cookie that could be
 * live is answered 401 at once, as `requireMember()` answers it; otherwise the cookie's hash goes on
 * `c.var.member_session` and the session is resolved later, by the wallet pay's first statement in the same round
 * trip as the wallet's lock, or by `resolveMember` on every other path. The answers are those of `requireMember()`:
 * a route that must fail for another reason first calls `resolveMember`, so a dead session still answers 401 first.
 */
export function memberSession(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const hash = sessionHashOf(getCookie(c, MEMBER_COOKIE));
    if (hash === null) return c.json(WECHAT_AUTH_REQUIRED, 401);
    c.set('member_session', hash);
    await next();
  };
}

/** The session cookie's token hash behind `memberSession()`. */
export function memberSessionOf(c: Context<AppEnv>): string {
  const hash = c.var.member_session;
  if (hash === undefined) throw memberSessionRequired();
  return hash;
}

/** The member behind `memberSession()`'s cookie, looked up once; 401 WECHAT_AUTH_REQUIRED when it is not live. */
export async function resolveMember(c: Context<AppEnv>): Promise<number> {
  const known = c.var.member_id;
  if (known !== undefined) return known;
  const { db, now } = c.var.deps;
  const id = await memberIdForHash(db, memberSessionOf(c), now());
  if (id === null) throw memberSessionRequired();
  c.set('member_id', id);
  return id;
}

/** The signed-in member's id inside a route behind `requireMember()`. */
export function memberOf(c: Context<AppEnv>): number {
  const id = c.var.member_id;
  if (id === undefined) throw memberSessionRequired();
  return id;
}
