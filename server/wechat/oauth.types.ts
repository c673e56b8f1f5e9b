/** Types of WeChat web sign-in (公众号网页授权, OAuth2): configuration, the code exchange and user info answers. */
import type { FetchLike } from './types';

export type OAuthScope = 'snsapi_base' | 'snsapi_userinfo';

export interface WechatOAuthConfig {
  appid: string;
  secret: string;
  /** `https://open.weixin.qq.com` in production; `<PUBLIC_URL>/backend/sandbox/wechat` in sandbox mode. */
  authorizeBase: string;
  /** `https://api.weixin.qq.com` in production; `<PUBLIC_URL>/backend/sandbox/wechat` in sandbox mode. */
  apiBase: string;
  fetch?: FetchLike;
  /** Per-request time limit in ms (default 10 000); a timeout is answered as errcode -1. */
  timeoutMs?: number;
  /** Sandbox mode: `authorizeUrl` may carry `sandbox_openid` (approve at once as that test user). */
  sandbox?: boolean;
}

export interface AuthorizeUrlInput {
  /** Absolute callback URL; it is percent-encoded into the authorize URL. */
  redirectUri: string;
  scope: OAuthScope;
  /** ≤128 chars of [a-zA-Z0-9]. */
  state: string;
  /** Sandbox only (ignored in live mode): approve at once as this test openid. */
  sandboxOpenid?: string;
  /** Sandbox only, with sandboxOpenid: sign in as a 快照页 virtual account (`is_snapshotuser: 1`). */
  sandboxSnapshot?: boolean;
}

/** WeChat's errcodes for the code exchange (always HTTP 200; match on errcode, never errmsg). */
export const OAUTH_ERRCODE = {
  SYSTEM_BUSY: -1,
  INVALID_APPID: 40013,
  INVALID_CODE: 40029,
  INVALID_SECRET: 40125,
  CODE_BEEN_USED: 40163,
  MISSING_CODE: 41008,
  CODE_EXPIRED: 42003,
  INVALID_ACCESS_TOKEN: 40001,
  INVALID_OPENID: 40003,
} as const;

export interface OAuthError {
  ok: false;
  errcode: number;
  errmsg: string;
}

export type CodeExchangeResult =
  | {
      ok: true;
      openid: string;
      unionid?: string;
      scope: string;
      access_token: string;
      refresh_token: string;
      expires_in: number;
      /** True for a 快照页 virtual account: do not persist that identity. */
      is_snapshotuser: boolean;
    }
  | OAuthError;

export type UserInfoResult =
  | {
      ok: true;
      openid: string;
      nickname: string;
      headimgurl: string;
      sex?: number;
      unionid?: string;
    }
  | OAuthError;

/** What the sign-in routes need from the OAuth client. */
export interface WechatOAuth {
  readonly appid: string;
  authorizeUrl(input: AuthorizeUrlInput): string;
  exchangeCode(code: string): Promise<CodeExchangeResult>;
  userInfo(accessToken: string, openid: string): Promise<UserInfoResult>;
}
