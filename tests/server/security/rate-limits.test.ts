/**
 * Anonymous endpoints under load (finding 3, docs/security.md): per-address limits answer 429 with Retry-After
 * while other addresses are served; 200 parallel polls of a pending WeChat order make one outbound order query,
 * and the next only after the minimum interval; abandoned sign-in states are purged once expired.
 */
import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauth_states, orders } from '../../../server/db/schema';
import { API_LIMIT, OAUTH_LIMIT, RateLimiter } from '../../../server/lib/rate-limit.middleware';
import { ORDER_QUERY_INTERVAL_MS } from '../../../server/services/orders';
import { STATE_TTL_MS } from '../../../server/routes/member-auth/member-auth.routes';
import { createTestApp, postJson, signInMember, type TestWorld, withCookie, WORLD } from '../test-app';

let t: TestWorld;
beforeAll(async () => {
  t = await createTestApp({ ...WORLD, env: { TRUST_PROXY: true } });
});
afterAll(async () => t?.close());

const as = (ip: string) => ({ headers: { 'X-Forwarded-For': ip } });

describe('per-address limits on anonymous endpoints', () => {
  it('the public device pages: a burst beyond the bucket is 429 with Retry-After; another address is served', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < API_LIMIT.capacity + 5; i++) {
      statuses.push((await t.request('/backend/api/devices/1', as('203.0.113.50'))).status);
    }
    expect(statuses.slice(0, API_LIMIT.capacity).every((s) => s === 200)).toBe(true);
    const refused = await t.request('/backend/api/devices/1', as('203.0.113.50'));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(((await refused.json()) as { code: string }).code).toBe('TOO_MANY_REQUESTS');
    expect((await t.request('/backend/api/devices/1', as('203.0.113.51'))).status).toBe(200);
  });

  it('WeChat sign-in start: at most a handful of states per address; no row written once refused', async () => {
    const before = (await t.deps.db.select({ n: count() }).from(oauth_states))[0]!.n;
    const statuses: number[] = [];
    for (let i = 0; i < OAUTH_LIMIT.capacity + 10; i++) {
      statuses.push(
        (await t.request('/backend/wechat/authorize?redirect=%2Fuser%2Fprofile', as('198.51.100.9'))).status,
      );
    }
    expect(statuses.filter((s) => s === 302)).toHaveLength(OAUTH_LIMIT.capacity);
    expect(statuses.filter((s) => s === 429)).toHaveLength(10);
    const after = (await t.deps.db.select({ n: count() }).from(oauth_states))[0]!.n;
    expect(after - before).toBe(OAUTH_LIMIT.capacity);
  });

  it('the bucket refills with time', () => {
    let now = 0;
    const l = new RateLimiter(() => now);
    const limit = { name: 'x', capacity: 2, perSecond: 1 };
    expect([l.take(limit, 'a'), l.take(limit, 'a'), l.take(limit, 'a')]).toEqual([0, 0, 1]);
    now += 1000;
    expect(l.take(limit, 'a')).toBe(0);
    expect(l.take(limit, 'b')).toBe(0);
  });
});

describe('the order query does not fan out to WeChat Pay', () => {
  it('200 parallel polls of a pending WeChat order make one outbound query, the next one after the interval', async () => {
    const cookie = await signInMember(t, 'fanout-member');
    const pay = await t.json<{ order: { order_no: string; status: string } }>(
      '/backend/user/pay',
      withCookie(cookie, postJson({ device_id: 2, venue_id: 1, price_id: 1, method: 'wechat' })),
    );
    expect(pay.status).toBe(201);
    const orderNo = pay.body.order.order_no;
    let outbound = 0;
    const pay$ = t.deps.wechat.pay;
    const original = pay$.queryByOutTradeNo.bind(pay$);
    pay$.queryByOutTradeNo = async (no: string) => {
      outbound++;
      return original(no);
    };
    try {
      const answers = await Promise.all(
        Array.from({ length: 200 }, () => t.request(`/backend/api/query?order_no=${orderNo}`)),
      );
      expect(answers.every((r) => r.status === 200)).toBe(true);
      expect(outbound).toBe(1);
      await t.request(`/backend/api/query?order_no=${orderNo}`);
      expect(outbound).toBe(1);
      t.advance(ORDER_QUERY_INTERVAL_MS + 10);
      await t.request(`/backend/api/query?order_no=${orderNo}`);
      expect(outbound).toBe(2);
    } finally {
      pay$.queryByOutTradeNo = original;
      t.advance(-(ORDER_QUERY_INTERVAL_MS + 10));
    }
    const [row] = await t.deps.db.select().from(orders).where(eq(orders.order_no, orderNo));
    expect(row!.status).toBe('pending');
  });
});

describe('abandoned sign-in states are purged once expired', () => {
  it('a new authorize removes every expired state', async () => {
    await t.request('/backend/wechat/authorize?redirect=%2F', as('192.0.2.1'));
    t.advance(STATE_TTL_MS + 1000);
    try {
      await t.request('/backend/wechat/authorize?redirect=%2F', as('192.0.2.2'));
      const rows = await t.deps.db.select().from(oauth_states);
      const now = Date.now() + STATE_TTL_MS + 1000;
      expect(rows.every((r) => r.expires_at.getTime() > now - 5000)).toBe(true);
      expect(rows).toHaveLength(1);
    } finally {
      t.advance(-(STATE_TTL_MS + 1000));
    }
  });
});
