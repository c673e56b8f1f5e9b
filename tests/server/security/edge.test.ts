/**
 * The edge every route passes (docs/security.md): bad input of any kind is a 4xx in our shape, never a 500, and
 * changes nothing; ids are positive integers only; JSON endpoints take JSON only; member-cookie writes come from
 * this site; an early error on a request with a body closes the connection.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { count } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { feedback, login_attempts, orders, permissions } from '../../../server/db/schema';
import {
  bearer,
  createTestApp,
  postJson,
  signInMember,
  type TestWorld,
  withCookie,
  WORLD,
} from '../test-app';

let t: TestWorld;
let cookie: string;

beforeAll(async () => {
  t = await createTestApp(WORLD);
  cookie = await signInMember(t, 'edge-member');
});
afterAll(async () => t?.close());

const rows = async (table: typeof orders | typeof feedback | typeof login_attempts | typeof permissions) =>
  (await t.deps.db.select({ n: count() }).from(table))[0]!.n;

async function adminToken(): Promise<string> {
  const { body } = await t.json<{ token: string }>(
    '/backend/auth/login',
    postJson({ username: 'admin', password: 'demo1234' }),
  );
  return body.token;
}

describe('NUL characters are refused at the edge (finding 4)', () => {
  it('in a JSON body: sign-in with a NUL in the username is 400, no attempt recorded', async () => {
    const before = await rows(login_attempts);
    const { status, body } = await t.json<{ code: string }>(
      '/backend/auth/login',
      postJson({ username: 'adm\u0000in', password: 'x' }),
    );
    expect(status).toBe(400);
    expect(body.code).toBe('NUL_CHARACTER');
    expect(await rows(login_attempts)).toBe(before);
  });

  it('in the query: the WeChat callback code and any query string', async () => {
    for (const path of [
      '/backend/wechat/callback?code=abc%00def&state=abcdef',
      '/backend/api/venue-service-prices?venue_id=1%00',
      '/backend/api/query?order_no=%00',
    ]) {
      const { status, body } = await t.json<{ code: string }>(path);
      expect(status, path).toBe(400);
      expect(body.code, path).toBe('NUL_CHARACTER');
    }
  });

  it('in a form body to the sandbox', async () => {
    const res = await t.request('/backend/sandbox/wechatpay/cashier/confirm', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'appId=wx%00&paySign=x',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { code: string }).code).toBe('NUL_CHARACTER');
  });
});

describe('malformed input is a 400, never a 500 (finding 4)', () => {
  it('the same permission row twice is refused and nothing changes', async () => {
    const token = await adminToken();
    const before = await t.deps.db.select().from(permissions);
    const row = { level: 2, feature: 'merchant.venues', allowed: false };
    const { status, body } = await t.json<{ code: string; details: Record<string, string> }>(
      '/backend/admin/permissions',
      { ...postJson({ items: [row, row] }, bearer(token).headers as Record<string, string>), method: 'PUT' },
    );
    expect(status).toBe(400);
    expect(body.code).toBe('VALIDATION_FAILED');
    expect(Object.keys(body.details)).toContain('items.1');
    expect(await t.deps.db.select().from(permissions)).toEqual(before);
  });

  it('a malformed percent escape in a query key or value, or in a path parameter', async () => {
    for (const path of [
      '/backend/api/venue-service-prices?%E0%A4%A=1',
      '/backend/api/query?order_no=%E0%A4%A',
      '/backend/api/devices/%E0%A4%A',
    ]) {
      const { status, body } = await t.json<{ code: string }>(path);
      expect(status, path).toBe(400);
      expect(['BAD_ENCODING', 'VALIDATION_FAILED'], path).toContain(body.code);
    }
    const stop = await t.request('/backend/user/using/%E0%A4%A/stop', withCookie(cookie, { method: 'POST' }));
    expect(stop.status).toBeGreaterThanOrEqual(400);
    expect(stop.status).toBeLessThan(500);
  });

  it('multipart bodies without a boundary or with broken parts, and JSON null on sandbox routes', async () => {
    const noBoundary = await t.request('/backend/sandbox/wechatpay/cashier/confirm', {
      method: 'POST',
      headers: { 'Content-Type': 'multipart/form-data' },
      body: 'appId=x',
    });
    expect(noBoundary.status).toBe(400);
    const broken = await t.request('/backend/sandbox/wechatpay/cashier/confirm', {
      method: 'POST',
      headers: { 'Content-Type': 'multipart/form-data; boundary=XYZ' },
      body: '--XYZ\r\nContent-Disposition: form-data\r\n\r\nx',
    });
    expect(broken.status).toBeLessThan(500);
    expect(broken.status).toBeGreaterThanOrEqual(400);
    const nullBody = await t.request('/backend/sandbox/wechatpay/_control', postJson(null));
    expect(nullBody.status).toBe(400);
  });
});

describe('ids are positive integers and nothing else (finding 5)', () => {
  const wrong: unknown[] = [true, [1], '0x1', '1', 1.5, 0, -1, 2 ** 31, null, {}];

  it('on pay, recharge and feedback: 400 naming the field; no order or feedback written', async () => {
    const ordersBefore = await rows(orders);
    const feedbackBefore = await rows(feedback);
    for (const v of wrong) {
      const pay = await t.json<{ code: string; details: Record<string, string> }>(
        '/backend/user/pay',
        withCookie(cookie, postJson({ device_id: v, venue_id: 1, price_id: 1, method: 'wallet' })),
      );
      expect(pay.status, JSON.stringify(v)).toBe(400);
      expect(Object.keys(pay.body.details)).toContain('device_id');
      const recharge = await t.json<{ details: Record<string, string> }>(
        '/backend/user/recharge',
        withCookie(cookie, postJson({ merchant_id: v, package_id: 1 })),
      );
      expect(recharge.status, JSON.stringify(v)).toBe(400);
      expect(Object.keys(recharge.body.details)).toContain('merchant_id');
      const fb = await t.json<{ details: Record<string, string> }>(
        '/backend/user/feedback',
        withCookie(cookie, postJson({ category: 'device', content: '设备无法启动，请处理', device_id: v })),
      );
      expect(fb.status, JSON.stringify(v)).toBe(400);
      expect(Object.keys(fb.body.details)).toContain('device_id');
    }
    expect(await rows(orders)).toBe(ordersBefore);
    expect(await rows(feedback)).toBe(feedbackBefore);
  });

  it('in a query string: only plain decimal digits', async () => {
    for (const v of ['0x1', '1.0', '-1', '01', 'true', '2147483648']) {
      const { status } = await t.json(`/backend/api/venue-service-prices?venue_id=${v}`);
      expect(status, v).toBe(400);
    }
    expect((await t.json('/backend/api/venue-service-prices?venue_id=1')).status).toBe(200);
  });
});

describe('JSON endpoints take JSON only; member-cookie writes come from this site (finding 6)', () => {
  it('a text/plain or form body to a member JSON endpoint is 415 and changes nothing', async () => {
    const before = await rows(feedback);
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', undefined]) {
      const res = await t.request(
        '/backend/user/feedback',
        withCookie(cookie, {
          method: 'POST',
          headers: type ? { 'Content-Type': type } : {},
          body: JSON.stringify({ category: 'device', content: '设备无法启动，请处理' }),
        }),
      );
      expect(res.status, String(type)).toBe(415);
      expect(((await res.json()) as { code: string }).code).toBe('UNSUPPORTED_MEDIA_TYPE');
    }
    expect(await rows(feedback)).toBe(before);
  });

  it('a cross-site write with the member cookie is refused, by Origin or by Sec-Fetch-Site', async () => {
    const before = await rows(feedback);
    const body = { category: 'device', content: '设备无法启动，请处理' };
    const evil = await t.request(
      '/backend/user/feedback',
      withCookie(cookie, postJson(body, { Origin: 'https://evil.example' })),
    );
    expect(evil.status).toBe(403);
    expect(((await evil.json()) as { code: string }).code).toBe('CROSS_SITE');
    const site = await t.request(
      '/backend/user/using/W20250101000000/stop',
      withCookie(cookie, { method: 'POST', headers: { 'Sec-Fetch-Site': 'cross-site' } }),
    );
    expect(site.status).toBe(403);
    expect(await rows(feedback)).toBe(before);
    // The same write from this site, or from a client that is not a browser, goes through.
    const own = await t.request(
      '/backend/user/feedback',
      withCookie(cookie, postJson(body, { Origin: new URL(t.deps.env.PUBLIC_URL).origin })),
    );
    expect(own.status).toBe(201);
  });
});

describe('an early error answer closes the connection (finding 7)', () => {
  it('413 on a keep-alive socket says Connection: close, and the next request on a new socket works', async () => {
    const server = serve({ fetch: t.app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise((r) => server.once('listening', r));
    const port = (server.address() as AddressInfo).port;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const send = (body: string, type = 'application/json') =>
      new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port,
            path: '/backend/auth/login',
            method: 'POST',
            agent,
            headers: { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection }));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    try {
      const big = await send('x'.repeat(2 * 1024 * 1024));
      expect(big.status).toBe(413);
      expect(big.connection).toBe('close');
      const plain = await send('{"username":"a"}', 'text/plain');
      expect(plain.status).toBe(415);
      expect(plain.connection).toBe('close');
      const next = await send(JSON.stringify({ username: 'nobody', password: 'wrong-password' }));
      expect(next.status).toBe(401);
    } finally {
      agent.destroy();
      await new Promise((r) => server.close(r));
    }
  });
});
