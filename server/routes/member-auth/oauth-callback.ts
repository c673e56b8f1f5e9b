/**
 * `GET /backend/wechat/callback` of the member sign-in (the flow is described in member-auth.routes.ts): claim the
 * state, or honour a duplicate callback of the same browser; exchange the code; create or update the member and
 * open the session behind the `sid` cookie; errors as a small Chinese page with a way to start again.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import { z } from 'zod';
import type { AppDeps, AppEnv } from '../../context';
import type { Db } from '../../db/client';
import { members, oauth_states } from '../../db/schema';
import { HttpError } from '../../lib/errors';
import type { CodeExchangeResult } from '../../wechat/oauth.types';
import type { Wechat } from '../../wechat/types';
import {
  createMemberSession,
  hashToken,
  memberSessionLive,
  openMemberSession,
  setMemberCookie,
} from '../../member/member-sessions';

/** The cookie binding a sign-in's state to the browser that started it (HttpOnly, path /backend/wechat). */
export const BROWSER_COOKIE = 'wx_oauth';
/** How long a duplicate callback waits for the first one to finish its code exchange. */
const DUPLICATE_WAIT_MS = 8000;

type OAuthState = typeof oauth_states.$inferSelect;
type Exchanged = Extract<CodeExchangeResult, { ok: true }>;

export function wechatOf(deps: AppDeps): Wechat {
  const wechat = deps.wechat;
  if (!wechat) throw new HttpError(503, 'WECHAT_NOT_CONFIGURED', '微信登录未配置');
  return wechat;
}

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

export async function wechatCallback(c: Context<AppEnv>) {
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
    .where(and(eq(oauth_states.state, state), isNull(oauth_states.used_at), gt(oauth_states.expires_at, now)))
    .returning();
  if (!claimed) return duplicateCallback(c, row.return_path, state, code, now);
  return exchangeAndSignIn(c, claimed, code, now);
}

/** A callback whose state was already claimed: refused, or (the same code again) the same member signed in anew. */
async function duplicateCallback(
  c: Context<AppEnv>,
  returnPath: string,
  state: string,
  code: string,
  now: Date,
) {
  const { db } = c.var.deps;
  // Re-read: a concurrent duplicate may have claimed it between our read and our update.
  const [current] = await db.select().from(oauth_states).where(eq(oauth_states.state, state));
  if (!current) return errorPage(c, 400, 'STATE_INVALID', '登录请求无效或已过期，请重新登录');
  if (current.used_at === null)
    return errorPage(c, 400, 'STATE_EXPIRED', '登录请求已过期，请重新登录', returnPath);
  if (current.code !== code) return errorPage(c, 400, 'STATE_USED', '登录请求已使用，请重新登录', returnPath);
  // Duplicates are honoured only while the state lives, so an old callback URL is not a session forever.
  if (current.expires_at <= now)
    return errorPage(c, 400, 'STATE_EXPIRED', '登录请求已过期，请重新登录', returnPath);
  // ... and only while the first callback's session is signed in: after a sign-out the link opens nothing.
  if (current.session_id !== null && !(await memberSessionLive(db, current.session_id, now)))
    return errorPage(c, 400, 'STATE_USED', '登录请求已使用，请重新登录', returnPath);
  return signInAgain(c, returnPath, state, code);
}

/**
 * The same code and state again (phones call twice): sign the same member in once more, once the first callback has
 * finished. Only token hashes are ever stored, so the duplicate gets a session of its own rather than a copy of the
 * first one's token.
 */
async function signInAgain(c: Context<AppEnv>, returnPath: string, state: string, code: string) {
  const { deps } = c.var;
  const deadline = Date.now() + DUPLICATE_WAIT_MS;
  for (;;) {
    const [again] = await deps.db.select().from(oauth_states).where(eq(oauth_states.state, state));
    if (!again || again.code !== code) {
      return errorPage(c, 400, 'STATE_USED', '登录请求已使用，请重新登录', returnPath);
    }
    if (again.member_id !== null) {
      if (again.session_id !== null && !(await memberSessionLive(deps.db, again.session_id, deps.now())))
        return errorPage(c, 400, 'STATE_USED', '登录请求已使用，请重新登录', returnPath);
      const token = await createMemberSession(deps.db, again.member_id, deps.now());
      setMemberCookie(c, token, deps.env.PUBLIC_URL);
      c.header('Cache-Control', 'no-store');
      return c.redirect(again.return_path, 302);
    }
    if (Date.now() > deadline) {
      return errorPage(c, 400, 'STATE_USED', '登录处理中，请稍后重新登录', returnPath);
    }
    await sleep(50);
  }
}

/** The first callback of a state: exchange the code, then the member and their session. */
async function exchangeAndSignIn(c: Context<AppEnv>, claimed: OAuthState, code: string, now: Date) {
  const { deps } = c.var;
  const { db } = deps;
  const state = claimed.state;
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
    return errorPage(c, 400, 'SNAPSHOT_USER', '请点击页面下方的“使用完整服务”后再登录', claimed.return_path);
  }
  const token = await openSessionFor(db, state, result, await userProfile(wechat, result), now);
  setMemberCookie(c, token, deps.env.PUBLIC_URL);
  c.header('Cache-Control', 'no-store');
  return c.redirect(claimed.return_path, 302);
}

/** The member's nickname and avatar when the scope allows asking (nothing when WeChat does not answer). */
async function userProfile(
  wechat: Wechat,
  result: Exchanged,
): Promise<{ nickname?: string; avatar?: string }> {
  if (!result.scope.includes('snsapi_userinfo')) return {};
  const info = await wechat.oauth.userInfo(result.access_token, result.openid).catch(() => null);
  if (!info?.ok) return {};
  return { nickname: info.nickname.slice(0, 64), avatar: info.headimgurl.slice(0, 512) };
}

/** One transaction: the member by openid (created on first sign-in, else updated), a session, the state marked. */
async function openSessionFor(
  db: Db,
  state: string,
  result: Exchanged,
  { nickname, avatar }: { nickname?: string; avatar?: string },
  now: Date,
): Promise<string> {
  const openid = result.openid;
  const unionid = result.unionid ?? null;
  return db.transaction(async (tx) => {
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
}
