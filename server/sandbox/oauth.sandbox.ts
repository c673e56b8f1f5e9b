/**
 * The WeChat web sign-in sandbox: speaks 公众号网页授权 on the wire (authorize page and redirect, code exchange with
 * WeChat's errcodes, userinfo), so the production WechatOAuthClient runs against it unchanged. Codes and tokens
 * live in `sandbox_oauth_codes`.
 */
import { and, desc, eq, isNull } from 'drizzle-orm';
import { renderError } from '../lib/errors';
import { Hono, type Context } from 'hono';
import { sandbox_oauth_codes } from '../db/schema';
import { nonceStr, randomHex } from '../wechat/crypto';
import { OAUTH_ERRCODE } from '../wechat/types';
import { esc, page, type SandboxContext } from './context';

const CODE_TTL_MS = 5 * 60_000;
const TOKEN_TTL_S = 7200;
/** Refresh tokens live 30 days. */
const REFRESH_TTL_S = 30 * 24 * 3600;
const STATE_RE = /^[a-zA-Z0-9]{0,128}$/;
const OPENID_RE = /^[A-Za-z0-9_-]{1,64}$/;
const SCOPES = ['snsapi_base', 'snsapi_userinfo'];
/** WeChat matches the authorize parameters in this order. */
const PARAM_ORDER = ['appid', 'redirect_uri', 'response_type', 'scope', 'state'];

/** WeChat's errmsg style: the reason followed by a request id (`invalid code, rid: 6380622c-50076416-224b40b0`). */
function wxError(c: Context, errcode: number, reason: string) {
  const rid = `${randomHex(4)}-${randomHex(4)}-${randomHex(4)}`;
  // Always HTTP 200: WeChat reports errors in the body only.
  return c.json({ errcode, errmsg: `${reason}, rid: ${rid}` }, 200);
}

interface AuthorizeParams {
  appid: string;
  redirect_uri: string;
  response_type: string;
  scope: string;
  state: string;
}

/** Owns the sandbox's OAuth routes (mounted at `/backend/sandbox/wechat`). */
export function oauthSandboxRoutes(ctx: SandboxContext): Hono {
  const app = new Hono();
  // Bad input to a sandbox route is a 4xx in the API's error shape, also where the sandbox runs on its own.
  app.onError((err, c) => renderError(err, c));

  /** Checks the authorize parameters like WeChat does; returns the Chinese reason on failure. */
  function validate(p: AuthorizeParams): string | null {
    if (p.appid !== ctx.keys.appid) return `appid 错误（未知的公众号 ${p.appid || '(空)'}）`;
    if (p.response_type !== 'code') return 'response_type 必须是 code';
    if (!SCOPES.includes(p.scope)) return 'scope 参数错误或没有 scope 权限';
    if (!STATE_RE.test(p.state)) return 'state 只能是 a-zA-Z0-9，最多 128 字节';
    let host: string;
    try {
      const u = new URL(p.redirect_uri);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'redirect_uri 必须是 http(s) 链接';
      host = u.hostname;
    } catch {
      return 'redirect_uri 不是完整的链接（是否忘了 urlEncode？）';
    }
    if (!ctx.allowedHosts().includes(host))
      return `redirect_uri 域名与后台配置的网页授权域名不一致（10003）：${host}`;
    return null;
  }

  function errorPage(c: Context, reason: string) {
    return c.html(
      page(
        '模拟微信授权',
        `<div class="card"><h1>该链接无法访问</h1><p class="error">${esc(reason)}</p></div>`,
      ),
      400,
    );
  }

  async function issueCode(
    p: AuthorizeParams,
    openid: string,
    nickname: string,
    snapshot = false,
  ): Promise<string> {
    const code = nonceStr(32);
    await ctx.db.insert(sandbox_oauth_codes).values({
      code,
      appid: p.appid,
      openid,
      nickname,
      scope: p.scope,
      snapshot,
      expires_at: new Date(ctx.now() + CODE_TTL_MS),
      created_at: new Date(ctx.now()),
    });
    return code;
  }

  function callbackUrl(p: AuthorizeParams, code: string): string {
    const sep = p.redirect_uri.includes('?') ? '&' : '?';
    return `${p.redirect_uri}${sep}code=${encodeURIComponent(code)}&state=${encodeURIComponent(p.state)}`;
  }

  app.get('/connect/oauth2/authorize', async (c) => {
    const raw = new URL(c.req.url).search.slice(1);
    const keys = raw ? raw.split('&').map((kv) => decodeURIComponent(kv.split('=')[0] ?? '')) : [];
    const known = keys.filter((k) => PARAM_ORDER.includes(k));
    const expected = PARAM_ORDER.filter((k) => known.includes(k));
    if (known.join(',') !== expected.join(',')) {
      return errorPage(c, '授权链接参数顺序不对（appid、redirect_uri、response_type、scope、state）');
    }
    const q = c.req.query();
    const p: AuthorizeParams = {
      appid: q.appid ?? '',
      redirect_uri: q.redirect_uri ?? '',
      response_type: q.response_type ?? '',
      scope: q.scope ?? '',
      state: q.state ?? '',
    };
    const bad = validate(p);
    if (bad) return errorPage(c, bad);

    const quick = q.sandbox_openid;
    if (quick !== undefined) {
      if (!OPENID_RE.test(quick))
        return errorPage(c, 'sandbox_openid 只能是字母、数字、_ 或 -（最多 64 个）');
      const code = await issueCode(p, quick, `测试用户${quick.slice(-4)}`, q.sandbox_snapshot === '1');
      return c.redirect(callbackUrl(p, code), 302);
    }

    // Recent test users, to sign in again with one tap.
    const recent = await ctx.db
      .selectDistinctOn([sandbox_oauth_codes.openid], {
        openid: sandbox_oauth_codes.openid,
        nickname: sandbox_oauth_codes.nickname,
      })
      .from(sandbox_oauth_codes)
      .where(eq(sandbox_oauth_codes.appid, p.appid))
      .orderBy(sandbox_oauth_codes.openid, desc(sandbox_oauth_codes.created_at))
      .limit(5);
    const hidden = (Object.keys(p) as (keyof AuthorizeParams)[])
      .map((k) => `<input type="hidden" name="${k}" value="${esc(p[k])}">`)
      .join('');
    const newOpenid = `o${nonceStr(27)}`;
    const ask =
      p.scope === 'snsapi_userinfo'
        ? '申请获取你的昵称、头像'
        : '申请获取你的身份标识（静默授权，真实微信中不显示此页）';
    const users = recent
      .map(
        (u) =>
          `<form method="post"><input type="hidden" name="openid" value="${esc(u.openid)}">` +
          `<input type="hidden" name="nickname" value="${esc(u.nickname)}">${hidden}` +
          `<button class="user" type="submit">以「${esc(u.nickname || u.openid)}」登录 <span class="muted">${esc(u.openid)}</span></button></form>`,
      )
      .join('');
    return c.html(
      page(
        '模拟微信授权',
        `<div class="card"><span class="badge">沙箱</span><h1>模拟微信授权</h1>
<p>网页 <b>${esc(new URL(p.redirect_uri).host)}</b> ${esc(ask)}</p>
<p class="muted">这是本地沙箱，代替微信的授权页；选择或填写一个测试用户后确认。</p></div>
${users ? `<div class="card"><h1>最近的测试用户</h1>${users}</div>` : ''}
<div class="card"><form method="post">${hidden}
<label for="openid">openid</label><input type="text" id="openid" name="openid" value="${esc(newOpenid)}" required>
<label for="nickname">昵称</label><input type="text" id="nickname" name="nickname" value="测试用户${newOpenid.slice(-4)}">
<label><input type="checkbox" name="snapshot" value="1"> 快照页模式（虚拟账号，is_snapshotuser=1）</label>
<button class="primary" type="submit">确认授权</button></form></div>`,
      ),
    );
  });

  app.post('/connect/oauth2/authorize', async (c) => {
    const form = await c.req.parseBody();
    const s = (k: string) => (typeof form[k] === 'string' ? (form[k] as string) : '');
    const p: AuthorizeParams = {
      appid: s('appid'),
      redirect_uri: s('redirect_uri'),
      response_type: s('response_type'),
      scope: s('scope'),
      state: s('state'),
    };
    const bad = validate(p);
    if (bad) return errorPage(c, bad);
    const openid = s('openid').trim();
    if (!OPENID_RE.test(openid)) return errorPage(c, 'openid 只能是字母、数字、_ 或 -（最多 64 个）');
    const nickname = s('nickname').trim().slice(0, 32) || `测试用户${openid.slice(-4)}`;
    const code = await issueCode(p, openid, nickname, s('snapshot') === '1');
    return c.redirect(callbackUrl(p, code), 302);
  });

  app.get('/sns/oauth2/access_token', async (c) => {
    const { appid, secret, code, grant_type } = c.req.query();
    if (!appid) return wxError(c, 41002, 'appid missing');
    if (appid !== ctx.keys.appid) return wxError(c, OAUTH_ERRCODE.INVALID_APPID, 'invalid appid');
    if (!secret) return wxError(c, 41004, 'appsecret missing');
    if (secret !== ctx.keys.secret) return wxError(c, OAUTH_ERRCODE.INVALID_SECRET, 'invalid appsecret');
    if (!code) return wxError(c, OAUTH_ERRCODE.MISSING_CODE, 'missing code');
    if (grant_type !== 'authorization_code') return wxError(c, 40002, 'invalid grant_type');
    const [row] = await ctx.db.select().from(sandbox_oauth_codes).where(eq(sandbox_oauth_codes.code, code));
    if (!row || row.appid !== appid) return wxError(c, OAUTH_ERRCODE.INVALID_CODE, 'invalid code');
    if (row.used_at) return wxError(c, OAUTH_ERRCODE.CODE_BEEN_USED, 'code been used');
    if (row.expires_at.getTime() <= ctx.now()) return wxError(c, OAUTH_ERRCODE.CODE_EXPIRED, 'code expired');
    const accessToken = `${nonceStr(24)}_${randomHex(20)}`;
    const refreshToken = `${nonceStr(24)}_${randomHex(20)}`;
    // Single use even under concurrent exchanges: only the update that finds used_at empty wins.
    const won = await ctx.db
      .update(sandbox_oauth_codes)
      .set({
        used_at: new Date(ctx.now()),
        access_token: accessToken,
        token_expires_at: new Date(ctx.now() + TOKEN_TTL_S * 1000),
        refresh_token: refreshToken,
        refresh_expires_at: new Date(ctx.now() + REFRESH_TTL_S * 1000),
      })
      .where(and(eq(sandbox_oauth_codes.code, code), isNull(sandbox_oauth_codes.used_at)))
      .returning({ openid: sandbox_oauth_codes.openid });
    if (won.length === 0) return wxError(c, OAUTH_ERRCODE.CODE_BEEN_USED, 'code been used');
    return c.json(tokenAnswer(row, accessToken, refreshToken));
  });

  function tokenAnswer(
    row: typeof sandbox_oauth_codes.$inferSelect,
    accessToken: string,
    refreshToken: string,
  ) {
    return {
      access_token: accessToken,
      expires_in: TOKEN_TTL_S,
      refresh_token: refreshToken,
      openid: row.openid,
      scope: row.scope,
      // Present only for a snapshot-mode virtual account, as WeChat does.
      ...(row.snapshot ? { is_snapshotuser: 1 } : {}),
    };
  }

  app.get('/sns/oauth2/refresh_token', async (c) => {
    const { appid, grant_type, refresh_token } = c.req.query();
    if (!appid) return wxError(c, 41002, 'appid missing');
    if (appid !== ctx.keys.appid) return wxError(c, OAUTH_ERRCODE.INVALID_APPID, 'invalid appid');
    if (grant_type !== 'refresh_token') return wxError(c, 40002, 'invalid grant_type');
    if (!refresh_token) return wxError(c, 41003, 'refresh_token missing');
    const [row] = await ctx.db
      .select()
      .from(sandbox_oauth_codes)
      .where(eq(sandbox_oauth_codes.refresh_token, refresh_token));
    if (!row) return wxError(c, 40030, 'invalid refresh_token');
    if ((row.refresh_expires_at?.getTime() ?? 0) <= ctx.now())
      return wxError(c, 42002, 'refresh_token expired');
    const accessToken = `${nonceStr(24)}_${randomHex(20)}`;
    await ctx.db
      .update(sandbox_oauth_codes)
      .set({ access_token: accessToken, token_expires_at: new Date(ctx.now() + TOKEN_TTL_S * 1000) })
      .where(eq(sandbox_oauth_codes.code, row.code));
    return c.json(tokenAnswer(row, accessToken, refresh_token));
  });

  async function tokenRow(accessToken: string | undefined) {
    if (!accessToken) return undefined;
    const [row] = await ctx.db
      .select()
      .from(sandbox_oauth_codes)
      .where(eq(sandbox_oauth_codes.access_token, accessToken));
    return row;
  }

  app.get('/sns/userinfo', async (c) => {
    const { access_token, openid } = c.req.query();
    const row = await tokenRow(access_token);
    if (!row)
      return wxError(
        c,
        OAUTH_ERRCODE.INVALID_ACCESS_TOKEN,
        'invalid credential, access_token is invalid or not latest',
      );
    if ((row.token_expires_at?.getTime() ?? 0) <= ctx.now()) return wxError(c, 42001, 'access_token expired');
    if (openid !== row.openid) return wxError(c, OAUTH_ERRCODE.INVALID_OPENID, 'invalid openid');
    if (row.scope !== 'snsapi_userinfo') return wxError(c, 48001, 'api unauthorized');
    return c.json({
      openid: row.openid,
      nickname: row.nickname,
      sex: 0,
      province: '',
      city: '',
      country: '',
      headimgurl: '',
      privilege: [],
    });
  });

  app.get('/sns/auth', async (c) => {
    const { access_token, openid } = c.req.query();
    const row = await tokenRow(access_token);
    if (!row || row.openid !== openid || (row.token_expires_at?.getTime() ?? 0) <= ctx.now()) {
      return wxError(c, OAUTH_ERRCODE.INVALID_ACCESS_TOKEN, 'invalid credential');
    }
    return c.json({ errcode: 0, errmsg: 'ok' });
  });

  return app;
}
