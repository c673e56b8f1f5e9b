/**
 * Member sign-in with WeChat web OAuth (docs/decisions.md D7, D7): `GET /backend/wechat/authorize` binds a random
 * single-use `state` (10 min) to a same-origin return path and redirects to WeChat (or the sandbox);
 * `GET /backend/wechat/callback` claims the state, exchanges the code, creates the member on first sign-in, opens a
 * 30-day session behind the HttpOnly `sid` cookie and returns to the path. The state is bound to the starting
 * browser by the `wx_oauth` cookie, so a callback link replayed anywhere else opens nothing. Phones sometimes call
 * the callback twice: a second call with the same code and state, from the same browser and while the first
 * session is still signed in, signs the same member in without a second exchange (docs/security.md).
 * `POST /backend/user/logout` ends the session. Mounted at `/backend`.
 */
import { randomBytes } from 'node:crypto';
import { lt } from 'drizzle-orm';
import { Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { z } from 'zod';
import type { AppEnv } from '../../context';
import { oauth_states } from '../../db/schema';
import { badRequest } from '../../lib/errors';
import { parseQuery } from '../../lib/validate';
import type { OAuthScope } from '../../wechat/types';
import {
  MEMBER_COOKIE,
  clearMemberCookie,
  hashToken,
  revokeMemberSession,
} from '../../member/member-sessions';
import { isSafeReturnPath } from '../../lib/return-path';
import { BROWSER_COOKIE, wechatCallback, wechatOf } from './oauth-callback';

export const STATE_TTL_MS = 10 * 60_000;
export { BROWSER_COOKIE };

const AuthorizeQuery = z.object({
  redirect: z.string().max(2048, '返回地址过长').default('/'),
  scope: z.enum(['snsapi_base', 'snsapi_userinfo']).default('snsapi_base'),
  sandbox_openid: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, 'sandbox_openid 只能是字母、数字、_ 或 -（最多 64 个）')
    .optional(),
});

export function memberRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get('/wechat/authorize', async (c) => {
    const { deps } = c.var;
    const q = parseQuery(c, AuthorizeQuery);
    if (!isSafeReturnPath(q.redirect)) {
      throw badRequest(
        '返回地址必须是本站的相对路径',
        { redirect: '必须以单个 / 开头的站内路径' },
        'BAD_REDIRECT',
      );
    }
    const wechat = wechatOf(deps);
    const state = randomBytes(16).toString('hex');
    const browser = randomBytes(16).toString('hex');
    const now = deps.now();
    // Housekeeping: a state is of no use once expired (a duplicate callback is honoured only while it lives), so
    // abandoned and spent states go at once; with the per-address limit the table stays small under a flood.
    await deps.db.delete(oauth_states).where(lt(oauth_states.expires_at, now));
    await deps.db.insert(oauth_states).values({
      state,
      return_path: q.redirect,
      expires_at: new Date(now.getTime() + STATE_TTL_MS),
      created_at: now,
      browser_hash: hashToken(browser),
    });
    setCookie(c, BROWSER_COOKIE, browser, {
      httpOnly: true,
      sameSite: 'Lax',
      path: '/backend/wechat',
      secure: deps.env.PUBLIC_URL.startsWith('https://'),
      maxAge: STATE_TTL_MS / 1000,
    });
    const url = wechat.oauth.authorizeUrl({
      redirectUri: `${deps.env.PUBLIC_URL}/backend/wechat/callback`,
      scope: q.scope as OAuthScope,
      state,
      ...(wechat.mode === 'sandbox' && q.sandbox_openid ? { sandboxOpenid: q.sandbox_openid } : {}),
    });
    c.header('Cache-Control', 'no-store');
    return c.redirect(url, 302);
  });

  app.get('/wechat/callback', wechatCallback);

  app.post('/user/logout', async (c) => {
    const { deps } = c.var;
    const token = getCookie(c, MEMBER_COOKIE);
    if (token) await revokeMemberSession(deps.db, token, deps.now());
    clearMemberCookie(c, deps.env.PUBLIC_URL);
    deleteCookie(c, BROWSER_COOKIE, { path: '/backend/wechat' });
    return c.json({ ok: true });
  });

  return app;
}
