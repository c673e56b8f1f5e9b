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
import { setTimeout as sleep } from 'node:timers/promises';
import { and, eq, gt, isNull, lt, sql } from 'drizzle-orm';
import { Hono, type Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { z } from 'zod';
import type { AppDeps, AppEnv } from '../../context';
import { members, oauth_states } from '../../db/schema';
import { HttpError, badRequest } from '../../lib/errors';
import { parseQuery } from '../../lib/validate';
import type { OAuthScope, Wechat } from '../../wechat/types';
import {
  MEMBER_COOKIE,
  clearMemberCookie,
  createMemberSession,
  hashToken,
  memberSessionLive,
  openMemberSession,
  revokeMemberSession,
  setMemberCookie,
} from '../../member/member-sessions';
import { isSafeReturnPath } from '../../lib/return-path';

export const STATE_TTL_MS = 10 * 60_000;
/** The cookie binding a sign-in's state to the browser that started it (HttpOnly, path /backend/wechat). */
export const BROWSER_COOKIE = 'wx_oauth';
/** How long a duplicate callback waits for the first one to finish its code exchange. */
const DUPLICATE_WAIT_MS = 8000;

function wechatOf(deps: AppDeps): Wechat {
  const wechat = deps.wechat;
  if (!wechat) throw new HttpError(503, 'WECHAT_NOT_CONFIGURED', '微信登录未配置');
  return wechat;
}

const AuthorizeQuery = z.object({
  redirect: z.string().max(2048, '返回地址过长').default('/'),
  scope: z.enum(['snsapi_base', 'snsapi_userinfo']).default('snsapi_base'),
  sandbox_openid: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, 'sandbox_openid 只能是字母、数字、_ 或 -（最多 64 个）')
    .optional(),
});

const CallbackQuery = z.object({
  code: z.string().max(512).optional(),
  state: z.string().max(128).optional(),
});

const esc = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!,
  );

/** A small Chinese page for a sign-in that cannot continue, with a way to start again. */
function errorPage(c: Context, status: 400 | 502, code: string, message: string, returnPath = '/') {
  const retry = `/backend/wechat/authorize?redirect=${encodeURIComponent(returnPath)}`;
  c.header('Cache-Control', 'no-store');
  return c.html(
    `<!doctype html><html lang="zh-CN"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
      `<title>微信登录失败</title><style>body{font-family:system-ui,sans-serif;margin:0;padding:48px 24px;text-align:center;color:#1f2937}` +
      `h1{font-size:20px}p{color:#4b5563}a{display:inline-block;margin-top:24px;padding:12px 28px;border-radius:8px;background:#07c160;color:#fff;text-decoration:none}</style></head>` +
      `<body><h1>微信登录失败</h1><p data-code="${esc(code)}">${esc(message)}</p><a href="${esc(retry)}">重新登录</a></body></html>`,
    status,
  );
}

/** WeChat's errcode -> what the member reads. */
function exchangeMessage(errcode: number): string {
  switch (errcode) {
    case 40029:
      return `授权码无效或已过期，请重新登录（微信错误 ${errcode}）`;
    case 40163:
      return `授权码已被使用，请重新登录（微信错误 ${errcode}）`;
    case 42003:
      return `授权码已过期，请重新登录（微信错误 ${errcode}）`;
    case 41008:
      return `缺少授权码，请重新登录（微信错误 ${errcode}）`;
    case -1:
      return '微信系统繁忙，请稍后重试';
    default:
      return `微信登录失败，请稍后重试（微信错误 ${errcode}）`;
  }
}

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

  app.get('/wechat/callback', async (c) => {
    const { deps } = c.var;
    const { db } = deps;
    const parsed = CallbackQuery.safeParse(c.req.query());
    const state = parsed.success ? parsed.data.state : undefined;
    const code = parsed.success ? parsed.data.code : undefined;
    if (!state || !/^[A-Za-z0-9]{1,128}$/.test(state)) {
      return errorPage(c, 400, 'STATE_INVALID', '登录请求无效，请重新登录');
    }
    const now = deps.now();
    const [row] = await db.select().from(oauth_states).where(eq(oauth_states.state, state));
    if (!row) return errorPage(c, 400, 'STATE_INVALID', '登录请求无效或已过期，请重新登录');
    if (!code) return errorPage(c, 400, 'AUTH_DENIED', '未获得微信授权，请重新登录', row.return_path);
    // The state belongs to the browser that started the sign-in: a copied callback link opens nothing elsewhere.
    const browser = getCookie(c, BROWSER_COOKIE);
    if (!browser || !row.browser_hash || hashToken(browser) !== row.browser_hash) {
      return errorPage(c, 400, 'STATE_BROWSER', '请在发起登录的同一浏览器中完成微信登录', row.return_path);
    }

    // Claim the state: only one caller exchanges the code. No transaction is held across the exchange (the
    // sandbox answers from this same database, and a slow WeChat must not hold a row lock).
    const [claimed] = await db
      .update(oauth_states)
      .set({ used_at: now, code })
      .where(
        and(eq(oauth_states.state, state), isNull(oauth_states.used_at), gt(oauth_states.expires_at, now)),
      )
      .returning();

    if (!claimed) {
      // Re-read: a concurrent duplicate may have claimed it between our read and our update.
      const [current] = await db.select().from(oauth_states).where(eq(oauth_states.state, state));
      if (!current) return errorPage(c, 400, 'STATE_INVALID', '登录请求无效或已过期，请重新登录');
      if (current.used_at === null)
        return errorPage(c, 400, 'STATE_EXPIRED', '登录请求已过期，请重新登录', row.return_path);
      if (current.code !== code)
        return errorPage(c, 400, 'STATE_USED', '登录请求已使用，请重新登录', row.return_path);
      // Duplicates are honoured only while the state lives, so an old callback URL is not a session forever.
      if (current.expires_at <= now)
        return errorPage(c, 400, 'STATE_EXPIRED', '登录请求已过期，请重新登录', row.return_path);
      // ... and only while the first callback's session is signed in: after a sign-out the link opens nothing.
      if (current.session_id !== null && !(await memberSessionLive(db, current.session_id, now)))
        return errorPage(c, 400, 'STATE_USED', '登录请求已使用，请重新登录', row.return_path);
      // The same code and state again (phones call twice): sign the same member in once more. Only token hashes
      // are ever stored, so the duplicate gets a session of its own rather than a copy of the first one's token.
      const deadline = Date.now() + DUPLICATE_WAIT_MS;
      for (;;) {
        const [again] = await db.select().from(oauth_states).where(eq(oauth_states.state, state));
        if (!again || again.code !== code) {
          return errorPage(c, 400, 'STATE_USED', '登录请求已使用，请重新登录', row.return_path);
        }
        if (again.member_id !== null) {
          if (again.session_id !== null && !(await memberSessionLive(db, again.session_id, deps.now())))
            return errorPage(c, 400, 'STATE_USED', '登录请求已使用，请重新登录', row.return_path);
          const token = await createMemberSession(db, again.member_id, deps.now());
          setMemberCookie(c, token, deps.env.PUBLIC_URL);
          c.header('Cache-Control', 'no-store');
          return c.redirect(again.return_path, 302);
        }
        if (Date.now() > deadline) {
          return errorPage(c, 400, 'STATE_USED', '登录处理中，请稍后重新登录', row.return_path);
        }
        await sleep(50);
      }
    }

    const wechat = wechatOf(deps);
    const release = async () => {
      // The first exchange failed: a duplicate waiting on this state stops waiting and shows the error too.
      await db.update(oauth_states).set({ code: null }).where(eq(oauth_states.state, state));
    };
    let result;
    try {
      result = await wechat.oauth.exchangeCode(code);
    } catch (err) {
      await release();
      console.error('WeChat code exchange failed:', err);
      return errorPage(c, 502, 'WECHAT_UNAVAILABLE', '暂时无法连接微信，请稍后重试', claimed.return_path);
    }
    if (!result.ok) {
      await release();
      return errorPage(
        c,
        400,
        `WECHAT_${result.errcode}`,
        exchangeMessage(result.errcode),
        claimed.return_path,
      );
    }
    if (result.is_snapshotuser) {
      await release();
      return errorPage(
        c,
        400,
        'SNAPSHOT_USER',
        '请点击页面下方的“使用完整服务”后再登录',
        claimed.return_path,
      );
    }

    let nickname: string | undefined;
    let avatar: string | undefined;
    if (result.scope.includes('snsapi_userinfo')) {
      const info = await wechat.oauth.userInfo(result.access_token, result.openid).catch(() => null);
      if (info?.ok) {
        nickname = info.nickname.slice(0, 64);
        avatar = info.headimgurl.slice(0, 512);
      }
    }

    const openid = result.openid;
    const unionid = result.unionid ?? null;
    const token = await db.transaction(async (tx) => {
      const [m] = await tx
        .insert(members)
        .values({ openid, unionid, nickname: nickname ?? '', avatar_url: avatar ?? '', created_at: now })
        .onConflictDoUpdate({
          target: members.openid,
          set: {
            unionid: sql`coalesce(excluded.unionid, ${members.unionid})`,
            ...(nickname !== undefined ? { nickname } : {}),
            ...(avatar !== undefined ? { avatar_url: avatar } : {}),
          },
        })
        .returning({ id: members.id });
      const session = await openMemberSession(tx, m!.id, now);
      await tx
        .update(oauth_states)
        .set({ member_id: m!.id, session_id: session.id })
        .where(eq(oauth_states.state, state));
      return session.token;
    });
    setMemberCookie(c, token, deps.env.PUBLIC_URL);
    c.header('Cache-Control', 'no-store');
    return c.redirect(claimed.return_path, 302);
  });

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
