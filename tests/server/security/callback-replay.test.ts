/**
 * A used WeChat callback link opens no new session (finding 2, docs/security.md): the state is bound to the
 * browser that started the sign-in (the `wx_oauth` cookie), and a duplicate callback is honoured only from that
 * browser while the first session is still signed in.
 */
import { count } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { member_sessions } from '../../../server/db/schema';
import { browserOf, createTestApp, type TestWorld, withCookie, WORLD } from '../test-app';

let t: TestWorld;
beforeAll(async () => {
  t = await createTestApp(WORLD);
});
afterAll(async () => t?.close());

const local = (url: string) => {
  const u = new URL(url, 'http://x');
  return u.pathname + u.search;
};
const sessions = async () => (await t.deps.db.select({ n: count() }).from(member_sessions))[0]!.n;
const sidOf = (r: Response) => /(?:^|,\s*)sid=([^;]+)/.exec(r.headers.get('set-cookie') ?? '')?.[1];

async function startSignIn(openid: string) {
  const start = await t.request(
    `/backend/wechat/authorize?redirect=%2Fuser%2Fprofile&sandbox_openid=${openid}`,
  );
  const approved = await t.request(local(start.headers.get('location')!));
  return { callback: local(approved.headers.get('location')!), browser: browserOf(start) };
}

describe('replayed WeChat callback links', () => {
  it('from another browser (no wx_oauth cookie, or another one): refused, no session', async () => {
    const { callback } = await startSignIn('replay-a');
    const other = browserOf(await t.request('/backend/wechat/authorize?redirect=%2F'));
    const before = await sessions();
    for (const init of [{}, other]) {
      const res = await t.request(callback, init);
      expect(res.status).toBe(400);
      expect(await res.text()).toContain('同一浏览器');
      expect(sidOf(res)).toBeUndefined();
    }
    expect(await sessions()).toBe(before);
  });

  it('after the member signed out, the same link from the same browser opens nothing', async () => {
    const { callback, browser } = await startSignIn('replay-b');
    const first = await t.request(callback, browser);
    expect(first.status).toBe(302);
    const sid = sidOf(first)!;
    expect((await t.request('/backend/user/profile', withCookie(`sid=${sid}`))).status).toBe(200);
    // Sign out (the member's page posts this; same site).
    const out = await t.request('/backend/user/logout', withCookie(`sid=${sid}`, { method: 'POST' }));
    expect(out.status).toBe(200);
    const before = await sessions();
    const replay = await t.request(callback, browser);
    expect(replay.status).toBe(400);
    expect(sidOf(replay)).toBeUndefined();
    expect(await sessions()).toBe(before);
  });

  it("WeChat's double call from the same browser still signs the member in", async () => {
    const { callback, browser } = await startSignIn('replay-c');
    const [a, b] = await Promise.all([t.request(callback, browser), t.request(callback, browser)]);
    for (const r of [a, b]) {
      expect(r.status).toBe(302);
      expect((await t.request('/backend/user/profile', withCookie(`sid=${sidOf(r)}`))).status).toBe(200);
    }
  });
});
