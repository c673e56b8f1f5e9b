/**
 * Member sign-in through the WeChat sandbox, over the real app (app.request) and a real DB: the authorize
 * redirect's wire format, same-origin return paths, single-use short-lived state, idempotent callback, WeChat
 * errcodes, the HttpOnly cookie and requireMember().
 */
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { member_sessions, members, oauth_states } from '../../../server/db/schema';
import { browserOf, createTestApp, signInMember, type TestWorld, withCookie, WORLD } from '../test-app';

let t: TestWorld;
beforeAll(async () => {
  t = await createTestApp(WORLD);
});
afterAll(async () => {
  await t?.close();
});

const local = (url: string) => {
  const u = new URL(url, 'http://localhost');
  return `${u.pathname}${u.search}`;
};
const countOf = async (table: typeof members | typeof member_sessions | typeof oauth_states) =>
  (await t.deps.db.select({ n: count() }).from(table))[0]!.n;

/** authorize -> sandbox approval; returns the callback URL (code + state) without calling it. */
async function approve(openid: string, redirect = '/user/pay?device_id=1&venue_id=1') {
  const start = await t.request(
    `/backend/wechat/authorize?redirect=${encodeURIComponent(redirect)}&sandbox_openid=${openid}`,
  );
  expect(start.status).toBe(302);
  const approved = await t.request(local(start.headers.get('location')!));
  expect(approved.status).toBe(302);
  return {
    authorizeUrl: start.headers.get('location')!,
    callback: local(approved.headers.get('location')!),
    browser: browserOf(start),
  };
}

describe('authorize', () => {
  it('redirects to WeChat with appid, encoded redirect_uri, scope, state and #wechat_redirect, and stores the state', async () => {
    const res = await t.request(
      '/backend/wechat/authorize?redirect=%2Fuser%2Fpay%3Fdevice_id%3D1%26venue_id%3D1',
    );
    expect(res.status).toBe(302);
    const loc = res.headers.get('location')!;
    const redirectUri = `${t.deps.env.PUBLIC_URL}/backend/wechat/callback`;
    expect(loc).toMatch(
      new RegExp(
        `/connect/oauth2/authorize\\?appid=wx[0-9a-zA-Z]+&redirect_uri=${encodeURIComponent(redirectUri).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}&response_type=code&scope=snsapi_base&state=[0-9a-f]{32}#wechat_redirect$`,
      ),
    );
    const state = /state=([0-9a-f]{32})/.exec(loc)![1]!;
    const [row] = await t.deps.db.select().from(oauth_states).where(eq(oauth_states.state, state));
    expect(row?.return_path).toBe('/user/pay?device_id=1&venue_id=1');
    expect(row!.expires_at.getTime() - t.deps.now().getTime()).toBeGreaterThan(9 * 60_000);
    expect(row!.expires_at.getTime() - t.deps.now().getTime()).toBeLessThanOrEqual(10 * 60_000);
  });

  it.each([
    '//evil.example/x',
    '/\\evil.example',
    '\\\\evil.example',
    'https://evil.example/',
    'javascript:alert(1)',
    'user/pay',
    '/ok\nSet-Cookie: x=1',
    `/${'a'.repeat(3000)}`,
  ])('refuses the return path #%# with 400 and stores nothing', async (redirect) => {
    const before = await countOf(oauth_states);
    const res = await t.request(`/backend/wechat/authorize?redirect=${encodeURIComponent(redirect)}`);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { code: string; message: string };
    expect(['BAD_REDIRECT', 'VALIDATION_FAILED']).toContain(body.code);
    expect(body.message).toMatch(/[\u4e00-\u9fa5]/);
    expect(await countOf(oauth_states)).toBe(before);
  });
});

describe('callback', () => {
  it('creates the member on first sign-in, sets an HttpOnly SameSite=Lax cookie and returns to the path', async () => {
    const { callback, browser } = await approve('member-auth-a');
    const res = await t.request(callback, browser);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/user/pay?device_id=1&venue_id=1');
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^sid=[A-Za-z0-9_-]{40,};/);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).toMatch(/Path=\//);
    expect(cookie).not.toMatch(/Secure/);
    const [m] = await t.deps.db.select().from(members).where(eq(members.openid, 'member-auth-a'));
    expect(m).toBeTruthy();
    const sid = /sid=([^;]+)/.exec(cookie)![1]!;
    // Only the hash of the token is stored.
    const sessions = await t.deps.db
      .select()
      .from(member_sessions)
      .where(eq(member_sessions.member_id, m!.id));
    expect(sessions).toHaveLength(1);
    expect(sessions[0]!.token_hash).not.toContain(sid);
    const using = await t.json('/backend/user/using', withCookie(`sid=${sid}`));
    expect(using.status).toBe(200);
  });

  it('is idempotent: the same code and state twice sign the same member in and redirect the same way', async () => {
    const { callback, browser } = await approve('member-auth-b');
    const sessionsBefore = await countOf(member_sessions);
    const [a, b] = await Promise.all([t.request(callback, browser), t.request(callback, browser)]);
    const c = await t.request(callback, browser);
    for (const r of [a, b, c]) {
      expect(r.status).toBe(302);
      expect(r.headers.get('location')).toBe('/user/pay?device_id=1&venue_id=1');
    }
    const sid = (r: Response) => /sid=([^;]+)/.exec(r.headers.get('set-cookie') ?? '')?.[1];
    // Each answer carries a working session of the same member (only token hashes are stored, so a duplicate
    // gets a session of its own), and WeChat was asked once: one member, no error page.
    const profiles = await Promise.all(
      [a, b, c].map((r) =>
        t.json<{ member: { id: number } }>('/backend/user/profile', withCookie(`sid=${sid(r)}`)),
      ),
    );
    for (const p of profiles) expect(p.status).toBe(200);
    expect(new Set(profiles.map((p) => p.body.member.id)).size).toBe(1);
    expect(await countOf(member_sessions)).toBe(sessionsBefore + 3);
    expect(
      await t.deps.db.select({ n: count() }).from(members).where(eq(members.openid, 'member-auth-b')),
    ).toEqual([{ n: 1 }]);
  });

  it('the state is single use: another code with a used state is refused', async () => {
    const { authorizeUrl, callback, browser } = await approve('member-auth-c');
    expect((await t.request(callback, browser)).status).toBe(302);
    // WeChat issues a new code for the same authorize URL (user opened it again): the state is spent.
    const again = await t.request(local(authorizeUrl));
    const second = local(again.headers.get('location')!);
    expect(second).not.toBe(callback);
    const res = await t.request(second, browser);
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain('登录请求已使用');
    expect(res.headers.get('set-cookie')).toBeNull();
  });

  it('an expired or unknown state is refused with a clear page and a way to sign in again', async () => {
    const { callback, browser } = await approve('member-auth-d');
    t.advance(10 * 60_000 + 1000);
    try {
      const res = await t.request(callback, browser);
      expect(res.status).toBe(400);
      const html = await res.text();
      expect(html).toContain('已过期');
      expect(html).toContain('/backend/wechat/authorize?redirect=');
    } finally {
      t.advance(-(10 * 60_000 + 1000));
    }
    const unknown = await t.request(
      '/backend/wechat/callback?code=abc&state=deadbeefdeadbeefdeadbeefdeadbeef',
    );
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toContain('登录请求无效');
    const noState = await t.request('/backend/wechat/callback?code=abc');
    expect(noState.status).toBe(400);
  });

  it('a bad code: WeChat answers 40029 and the member reads a clear error; nothing is created', async () => {
    const start = await t.request('/backend/wechat/authorize?redirect=%2Fuser%2Fprofile');
    const state = /state=([0-9a-f]{32})/.exec(start.headers.get('location')!)![1]!;
    const membersBefore = await countOf(members);
    const sessionsBefore = await countOf(member_sessions);
    const res = await t.request(
      `/backend/wechat/callback?code=not-a-real-code&state=${state}`,
      browserOf(start),
    );
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain('40029');
    expect(html).toContain('授权码无效');
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(await countOf(members)).toBe(membersBefore);
    expect(await countOf(member_sessions)).toBe(sessionsBefore);
  });

  it('a code already spent at WeChat (40163) under a fresh state: a clear error page, no new session', async () => {
    const { callback, browser } = await approve('member-auth-40163');
    expect((await t.request(callback, browser)).status).toBe(302);
    const code = new URL(callback, 'http://x').searchParams.get('code')!;
    // A new sign-in attempt (fresh state) replays the spent code, as a stale page or a forwarded link would.
    const start = await t.request('/backend/wechat/authorize?redirect=%2Fuser%2Fprofile');
    const state = /state=([0-9a-f]{32})/.exec(start.headers.get('location')!)![1]!;
    const sessionsBefore = await countOf(member_sessions);
    const res = await t.request(
      `/backend/wechat/callback?code=${encodeURIComponent(code)}&state=${state}`,
      browserOf(start),
    );
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain('授权码已被使用');
    expect(html).toContain('40163');
    expect(html).toContain('/backend/wechat/authorize?redirect=');
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(await countOf(member_sessions)).toBe(sessionsBefore);
  });

  it('signing in again keeps one member per openid', async () => {
    const c1 = await signInMember(t, 'member-auth-e');
    const c2 = await signInMember(t, 'member-auth-e');
    expect(c1).not.toBe(c2);
    expect(
      await t.deps.db.select({ n: count() }).from(members).where(eq(members.openid, 'member-auth-e')),
    ).toEqual([{ n: 1 }]);
  });
});

describe('requireMember and logout', () => {
  it('answers 401 WECHAT_AUTH_REQUIRED without a session, with a bogus one, and after logout', async () => {
    for (const init of [{}, withCookie('sid=bogus-token-bogus-token-bogus'), withCookie('sid=')]) {
      const r = await t.json<{ code: string; message: string }>('/backend/user/using', init);
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ code: 'WECHAT_AUTH_REQUIRED', message: '需要微信授权' });
    }
    // A staff header claiming a level changes nothing.
    const spoof = await t.json('/backend/user/using', {
      headers: { 'X-UserLevel': '1', 'X-MerchantID': '1' },
    });
    expect(spoof.status).toBe(401);

    const cookie = await signInMember(t, 'member-auth-f');
    expect((await t.json('/backend/user/using', withCookie(cookie))).status).toBe(200);
    const out = await t.request('/backend/user/logout', withCookie(cookie, { method: 'POST' }));
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/sid=;/);
    expect((await t.json('/backend/user/using', withCookie(cookie))).status).toBe(401);
  });

  it('a session expires after 30 days', async () => {
    const cookie = await signInMember(t, 'member-auth-g');
    t.advance(30 * 24 * 3600_000 + 1000);
    try {
      expect((await t.json('/backend/user/using', withCookie(cookie))).status).toBe(401);
    } finally {
      t.advance(-(30 * 24 * 3600_000 + 1000));
    }
  });
});

describe('https', () => {
  it('marks the cookie Secure when PUBLIC_URL is https', async () => {
    const s = await createTestApp({
      ...WORLD,
      env: { PUBLIC_URL: 'https://pay.example.com', WECHAT_SANDBOX: true },
    });
    try {
      const start = await s.request('/backend/wechat/authorize?redirect=%2F&sandbox_openid=secure-1');
      const approved = await s.request(local(start.headers.get('location')!));
      const res = await s.request(local(approved.headers.get('location')!), browserOf(start));
      expect(res.status).toBe(302);
      expect(res.headers.get('set-cookie')).toMatch(/Secure/);
    } finally {
      await s.close();
    }
  });
});
