/**
 * WeChat web sign-in: the production WechatOAuthClient against the OAuth sandbox over real loopback HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WechatOAuthClient } from '../../../server/wechat/oauth';
import { OAUTH_ERRCODE } from '../../../server/wechat/types';
import { createTestApp } from '../test-app';
import { PROTOCOL, type ProtocolApp } from './wechat-harness';

let h: ProtocolApp;
let clock = Date.now();

beforeAll(async () => {
  h = await createTestApp({ ...PROTOCOL, wechat: { receiver: true, now: () => clock } });
});
afterAll(async () => {
  await h?.close();
});

/** Follows the authorize URL like WeChat would (the fragment is not sent) and returns the callback URL. */
async function authorize(url: string): Promise<{ status: number; location: string | null; text: string }> {
  const res = await fetch(url.replace(/#wechat_redirect$/, ''), { redirect: 'manual' });
  return { status: res.status, location: res.headers.get('location'), text: await res.text() };
}

function callback(h: ProtocolApp) {
  return `${h.publicUrl}/backend/wechat/callback?next=%2Fuser%2Fpay&x=1`;
}

describe('authorize URL', () => {
  it('is built in WeChat exact parameter order with an encoded redirect_uri', () => {
    const client = new WechatOAuthClient({
      appid: 'wx1234567890abcdef',
      secret: 's',
      authorizeBase: 'https://open.weixin.qq.com',
      apiBase: 'https://api.weixin.qq.com',
    });
    expect(
      client.authorizeUrl({
        redirectUri: 'https://pay.example.com/backend/wechat/callback?a=1&b=2',
        scope: 'snsapi_base',
        state: 'Ab12',
        // Ignored outside the sandbox.
        sandboxOpenid: 'oTest',
      }),
    ).toBe(
      'https://open.weixin.qq.com/connect/oauth2/authorize?appid=wx1234567890abcdef' +
        '&redirect_uri=https%3A%2F%2Fpay.example.com%2Fbackend%2Fwechat%2Fcallback%3Fa%3D1%26b%3D2' +
        '&response_type=code&scope=snsapi_base&state=Ab12#wechat_redirect',
    );
    expect(() =>
      client.authorizeUrl({ redirectUri: 'https://x', scope: 'snsapi_base', state: 'a-b' }),
    ).toThrow();
    expect(() =>
      client.authorizeUrl({ redirectUri: 'https://x', scope: 'snsapi_base', state: 'a'.repeat(129) }),
    ).toThrow();
  });
});

describe('sandbox sign-in', () => {
  it('approves at once with sandbox_openid, and the code is single use', async () => {
    const url = h.wechat.oauth.authorizeUrl({
      redirectUri: callback(h),
      scope: 'snsapi_base',
      state: 'st4te',
      sandboxOpenid: 'oAlice',
    });
    expect(url).toContain('&sandbox_openid=oAlice#wechat_redirect');
    const res = await authorize(url);
    expect(res.status).toBe(302);
    const cb = new URL(res.location!);
    expect(`${cb.origin}${cb.pathname}`).toBe(`${h.publicUrl}/backend/wechat/callback`);
    // The callback's own query survives (redirect_uri was encoded), then code and state are appended.
    expect(cb.searchParams.get('next')).toBe('/user/pay');
    expect(cb.searchParams.get('x')).toBe('1');
    expect(cb.searchParams.get('state')).toBe('st4te');
    const code = cb.searchParams.get('code')!;
    expect(code).toMatch(/^[A-Za-z0-9]{32}$/);

    const ok = await h.wechat.oauth.exchangeCode(code);
    expect(ok).toMatchObject({ ok: true, openid: 'oAlice', scope: 'snsapi_base', is_snapshotuser: false });
    if (!ok.ok) throw new Error('unreachable');
    expect(ok.access_token.length).toBeGreaterThan(20);
    expect(ok.expires_in).toBe(7200);

    // A phone calling the callback twice: the second exchange is 40163.
    const again = await h.wechat.oauth.exchangeCode(code);
    expect(again).toMatchObject({ ok: false, errcode: OAUTH_ERRCODE.CODE_BEEN_USED });
    if (again.ok) throw new Error('unreachable');
    expect(again.errmsg).toMatch(/^code been used, rid: [0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}$/);
  });

  it('signs in a snapshot-mode virtual account (is_snapshotuser) and refreshes tokens', async () => {
    const res = await authorize(
      h.wechat.oauth.authorizeUrl({
        redirectUri: callback(h),
        scope: 'snsapi_base',
        state: 'snap',
        sandboxOpenid: 'oSnap',
        sandboxSnapshot: true,
      }),
    );
    const code = new URL(res.location!).searchParams.get('code')!;
    const token = await h.wechat.oauth.exchangeCode(code);
    expect(token).toMatchObject({ ok: true, openid: 'oSnap', is_snapshotuser: true });
    if (!token.ok) throw new Error('unreachable');

    const refreshed = await h.wechat.oauth.refresh(token.refresh_token);
    expect(refreshed).toMatchObject({ ok: true, openid: 'oSnap', refresh_token: token.refresh_token });
    if (!refreshed.ok) throw new Error('unreachable');
    expect(refreshed.access_token).not.toBe(token.access_token);
    expect(await h.wechat.oauth.refresh('nope')).toMatchObject({ ok: false, errcode: 40030 });
  });

  it('answers errors with HTTP 200 and WeChat errcodes', async () => {
    const raw = await fetch(
      `${h.sandbox.oauthConfig.apiBase}/sns/oauth2/access_token?appid=${h.sandbox.keys.appid}&secret=${h.sandbox.keys.secret}&code=nope&grant_type=authorization_code`,
    );
    expect(raw.status).toBe(200);
    expect(await raw.json()).toMatchObject({
      errcode: 40029,
      errmsg: expect.stringMatching(/^invalid code, rid: /),
    });

    expect(await h.wechat.oauth.exchangeCode('doesNotExist')).toMatchObject({
      ok: false,
      errcode: OAUTH_ERRCODE.INVALID_CODE,
    });
    expect(await h.wechat.oauth.exchangeCode('')).toMatchObject({
      ok: false,
      errcode: OAUTH_ERRCODE.MISSING_CODE,
    });

    const wrongSecret = new WechatOAuthClient({ ...h.sandbox.oauthConfig, secret: 'not-the-secret' });
    expect(await wrongSecret.exchangeCode('x')).toMatchObject({
      ok: false,
      errcode: OAUTH_ERRCODE.INVALID_SECRET,
    });
    const wrongAppid = new WechatOAuthClient({ ...h.sandbox.oauthConfig, appid: 'wx0000000000000000' });
    expect(await wrongAppid.exchangeCode('x')).toMatchObject({
      ok: false,
      errcode: OAUTH_ERRCODE.INVALID_APPID,
    });
  });

  it('expires codes after 5 minutes (42003)', async () => {
    const res = await authorize(
      h.wechat.oauth.authorizeUrl({
        redirectUri: callback(h),
        scope: 'snsapi_base',
        state: 'ttl',
        sandboxOpenid: 'oBob',
      }),
    );
    const code = new URL(res.location!).searchParams.get('code')!;
    clock += 5 * 60_000 + 1000;
    try {
      expect(await h.wechat.oauth.exchangeCode(code)).toMatchObject({
        ok: false,
        errcode: OAUTH_ERRCODE.CODE_EXPIRED,
      });
    } finally {
      clock = Date.now();
    }
  });

  it('renders the consent page, signs in the chosen test user, and serves userinfo', async () => {
    const url = h.wechat.oauth.authorizeUrl({
      redirectUri: callback(h),
      scope: 'snsapi_userinfo',
      state: 'consent1',
    });
    const page = await authorize(url);
    expect(page.status).toBe(200);
    expect(page.text).toContain('模拟微信授权');
    expect(page.text).toContain('确认授权');

    const form = new URLSearchParams({
      appid: h.sandbox.keys.appid,
      redirect_uri: callback(h),
      response_type: 'code',
      scope: 'snsapi_userinfo',
      state: 'consent1',
      openid: 'oCarol',
      nickname: '小卡',
    });
    const post = await fetch(url.replace(/#wechat_redirect$/, ''), {
      method: 'POST',
      body: form,
      redirect: 'manual',
    });
    expect(post.status).toBe(302);
    const code = new URL(post.headers.get('location')!).searchParams.get('code')!;
    const token = await h.wechat.oauth.exchangeCode(code);
    if (!token.ok) throw new Error(`exchange failed: ${token.errcode}`);
    expect(token.scope).toBe('snsapi_userinfo');
    expect(await h.wechat.oauth.userInfo(token.access_token, 'oCarol')).toMatchObject({
      ok: true,
      openid: 'oCarol',
      nickname: '小卡',
    });
    expect(await h.wechat.oauth.userInfo(token.access_token, 'oSomeoneElse')).toMatchObject({
      ok: false,
      errcode: OAUTH_ERRCODE.INVALID_OPENID,
    });
    expect(await h.wechat.oauth.userInfo('bogus', 'oCarol')).toMatchObject({
      ok: false,
      errcode: OAUTH_ERRCODE.INVALID_ACCESS_TOKEN,
    });

    // The user now shows among the recent test users.
    const again = await authorize(url);
    expect(again.text).toContain('小卡');
  });

  it('refuses a foreign redirect_uri host, a wrong parameter order, a bad scope or state', async () => {
    const base = `${h.sandbox.oauthConfig.authorizeBase}/connect/oauth2/authorize`;
    const appid = h.sandbox.keys.appid;
    const enc = encodeURIComponent;
    const cases = [
      `${base}?appid=${appid}&redirect_uri=${enc('https://evil.example/cb')}&response_type=code&scope=snsapi_base&state=a`,
      `${base}?redirect_uri=${enc(callback(h))}&appid=${appid}&response_type=code&scope=snsapi_base&state=a`,
      `${base}?appid=${appid}&redirect_uri=${enc(callback(h))}&response_type=code&scope=snsapi_all&state=a`,
      `${base}?appid=${appid}&redirect_uri=${enc(callback(h))}&response_type=token&scope=snsapi_base&state=a`,
      `${base}?appid=${appid}&redirect_uri=${enc(callback(h))}&response_type=code&scope=snsapi_base&state=a-b`,
      `${base}?appid=wxunknown&redirect_uri=${enc(callback(h))}&response_type=code&scope=snsapi_base&state=a`,
      `${base}?appid=${appid}&redirect_uri=${enc(callback(h))}&response_type=code&scope=snsapi_base&state=a&sandbox_openid=${enc('bad id')}`,
    ];
    for (const url of cases) {
      const res = await authorize(url);
      expect(res.status, url).toBe(400);
      expect(res.location).toBeNull();
      expect(res.text).toContain('该链接无法访问');
    }
  });
});
