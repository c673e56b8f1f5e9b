/**
 * WeChat web sign-in (公众号网页授权) client: builds the authorize URL in WeChat's exact parameter order and exchanges
 * codes server-side. WeChat answers errors with HTTP 200 and an `errcode`, so results are a discriminated union and
 * callers match on `errcode`, never on `errmsg`.
 */
import type {
  AuthorizeUrlInput,
  CodeExchangeResult,
  FetchLike,
  OAuthError,
  UserInfoResult,
  WechatOAuth,
  WechatOAuthConfig,
} from './types';

const STATE_RE = /^[a-zA-Z0-9]{1,128}$/;

/** Owns the OAuth2 wire protocol with WeChat (or the sandbox, which speaks the same one). */
export class WechatOAuthClient implements WechatOAuth {
  readonly appid: string;
  private readonly fetch: FetchLike;

  constructor(private readonly config: WechatOAuthConfig) {
    this.appid = config.appid;
    this.fetch = config.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  /**
   * `{authorizeBase}/connect/oauth2/authorize?appid&redirect_uri&response_type=code&scope&state#wechat_redirect`.
   * WeChat matches the parameter order strictly, so the string is built by hand, not with URLSearchParams.
   */
  authorizeUrl({ redirectUri, scope, state, sandboxOpenid, sandboxSnapshot }: AuthorizeUrlInput): string {
    if (!STATE_RE.test(state)) throw new Error('state must be 1–128 characters of [a-zA-Z0-9]');
    const base = this.config.authorizeBase.replace(/\/+$/, '');
    let url =
      `${base}/connect/oauth2/authorize?appid=${encodeURIComponent(this.appid)}` +
      `&redirect_uri=${encodeURIComponent(redirectUri)}&response_type=code` +
      `&scope=${scope}&state=${state}`;
    if (this.config.sandbox && sandboxOpenid) {
      url += `&sandbox_openid=${encodeURIComponent(sandboxOpenid)}`;
      if (sandboxSnapshot) url += '&sandbox_snapshot=1';
    }
    return `${url}#wechat_redirect`;
  }

  async exchangeCode(code: string): Promise<CodeExchangeResult> {
    const q =
      `appid=${encodeURIComponent(this.appid)}&secret=${encodeURIComponent(this.config.secret)}` +
      `&code=${encodeURIComponent(code)}&grant_type=authorization_code`;
    return this.tokenResult(await this.getJson(`/sns/oauth2/access_token?${q}`));
  }

  /** `sns/oauth2/refresh_token`: a fresh web access_token (refresh tokens live 30 days). */
  async refresh(refreshToken: string): Promise<CodeExchangeResult> {
    const q =
      `appid=${encodeURIComponent(this.appid)}&grant_type=refresh_token` +
      `&refresh_token=${encodeURIComponent(refreshToken)}`;
    return this.tokenResult(await this.getJson(`/sns/oauth2/refresh_token?${q}`));
  }

  private tokenResult(body: Record<string, unknown> | OAuthError): CodeExchangeResult {
    if (isError(body)) return body;
    if (typeof body.openid !== 'string' || typeof body.access_token !== 'string') {
      return { ok: false, errcode: -1, errmsg: 'malformed access_token answer' };
    }
    return {
      ok: true,
      openid: body.openid,
      ...(typeof body.unionid === 'string' ? { unionid: body.unionid } : {}),
      scope: typeof body.scope === 'string' ? body.scope : '',
      access_token: body.access_token,
      refresh_token: typeof body.refresh_token === 'string' ? body.refresh_token : '',
      expires_in: typeof body.expires_in === 'number' ? body.expires_in : 0,
      is_snapshotuser: body.is_snapshotuser === 1,
    };
  }

  async userInfo(accessToken: string, openid: string): Promise<UserInfoResult> {
    const q = `access_token=${encodeURIComponent(accessToken)}&openid=${encodeURIComponent(openid)}&lang=zh_CN`;
    const body = await this.getJson(`/sns/userinfo?${q}`);
    if (isError(body)) return body;
    if (typeof body.openid !== 'string')
      return { ok: false, errcode: -1, errmsg: 'malformed userinfo answer' };
    return {
      ok: true,
      openid: body.openid,
      nickname: typeof body.nickname === 'string' ? body.nickname : '',
      headimgurl: typeof body.headimgurl === 'string' ? body.headimgurl : '',
      ...(typeof body.sex === 'number' ? { sex: body.sex } : {}),
      ...(typeof body.unionid === 'string' ? { unionid: body.unionid } : {}),
    };
  }

  /** GET and parse JSON; transport failures become errcode -1 (系统繁忙) so callers handle one shape. */
  private async getJson(pathAndQuery: string): Promise<Record<string, unknown> | OAuthError> {
    const url = `${this.config.apiBase.replace(/\/+$/, '')}${pathAndQuery}`;
    let res: Response;
    try {
      res = await this.fetch(url, {
        method: 'GET',
        headers: { Accept: 'application/json' },
        signal: AbortSignal.timeout(this.config.timeoutMs ?? 10_000),
      });
    } catch (e) {
      return { ok: false, errcode: -1, errmsg: `network error: ${(e as Error).message}` };
    }
    const text = await res.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return { ok: false, errcode: -1, errmsg: `HTTP ${res.status}: not JSON` };
    }
    if (!body || typeof body !== 'object') return { ok: false, errcode: -1, errmsg: 'not a JSON object' };
    const rec = body as Record<string, unknown>;
    if (typeof rec.errcode === 'number' && rec.errcode !== 0) {
      return { ok: false, errcode: rec.errcode, errmsg: typeof rec.errmsg === 'string' ? rec.errmsg : '' };
    }
    return rec;
  }
}

function isError(v: Record<string, unknown> | OAuthError): v is OAuthError {
  return (v as OAuthError).ok === false;
}
