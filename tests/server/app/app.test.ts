import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createApp } from '../../../server/app';
import { CONTENT_SECURITY_POLICY } from '../../../server/lib/security-headers.middleware';
import { bearer, createTestApp, type TestApp } from '../test-app';

let t: TestApp;
let dist: string;
beforeAll(async () => {
  dist = fs.mkdtempSync(path.join(os.tmpdir(), 'scango-dist-'));
  fs.mkdirSync(path.join(dist, 'assets'));
  fs.writeFileSync(
    path.join(dist, 'index.html'),
    '<!doctype html><title>扫码即用</title><script>window.ok = 1;</script><div id="root"></div>',
  );
  fs.writeFileSync(path.join(dist, 'assets', 'index-abc123.js'), 'console.log(1)');
  fs.writeFileSync(path.join(dist, 'favicon.svg'), '<svg/>');
  fs.writeFileSync(path.join(path.dirname(dist), 'secret.txt'), 'no');
  t = await createTestApp({ env: { NODE_ENV: 'production', SERVE_CLIENT: true }, deps: { clientDir: dist } });
});
afterAll(async () => {
  await t.close();
  fs.rmSync(dist, { recursive: true, force: true });
});

describe('app', () => {
  it('health answers 200 with the DB kind', async () => {
    const { status, body } = await t.json('/backend/health');
    expect(status).toBe(200);
    expect(body).toEqual({ ok: true, db: process.env.TEST_DATABASE_URL ? 'postgres' : 'pglite' });
  });

  it('health answers 503 when the DB is unreachable', async () => {
    const broken = createApp({
      ...t.deps,
      db: {
        execute: () => Promise.reject(new Error('connection refused')),
      } as unknown as typeof t.deps.db,
    });
    const errors: unknown[] = [];
    const orig = console.error;
    console.error = (...a: unknown[]) => void errors.push(a);
    try {
      const res = await broken.request('/backend/health');
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ ok: false, code: 'DB_UNAVAILABLE' });
    } finally {
      console.error = orig;
    }
    expect(errors).toHaveLength(1);
  });

  it('routes that skip parseJson still answer bad JSON and failed schemas with 400, unexpected errors with 500', async () => {
    const app = createApp(t.deps);
    const schema = z.object({ n: z.number().int() });
    app.post('/backend/__raw', async (c) => c.json(schema.parse(await c.req.json())));
    app.get('/backend/__boom', () => {
      throw new Error('boom');
    });
    const post = (body: string) =>
      app.request('/backend/__raw', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
    const bad = await post('{nope');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ code: 'BAD_JSON', message: '请求内容不是合法的 JSON' });
    const wrong = await post('{"n":"x"}');
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { n: expect.any(String) },
    });
    const orig = console.error;
    console.error = () => {};
    try {
      const boom = await app.request('/backend/__boom');
      expect(boom.status).toBe(500);
      expect(await boom.json()).toEqual({ code: 'INTERNAL', message: '服务器内部错误' });
    } finally {
      console.error = orig;
    }
  });

  it('unknown API paths answer 404 JSON', async () => {
    const { status, body } = await t.json('/backend/no-such-thing');
    expect(status).toBe(404);
    expect(body).toEqual({ code: 'NOT_FOUND', message: '接口不存在' });
  });

  it('sends security headers in production, a request id, and no-store on the API', async () => {
    const res = await t.request('/backend/health');
    expect(res.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f]{8}$/);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('serves the client: index.html no-cache with history fallback, hashed assets immutable', async () => {
    const root = await t.request('/');
    expect(root.status).toBe(200);
    expect(root.headers.get('cache-control')).toBe('no-cache');
    expect(await root.text()).toContain('扫码即用');

    const deep = await t.request('/user/pay?device_id=1&venue_id=1');
    expect(deep.status).toBe(200);
    expect(deep.headers.get('content-type')).toMatch(/text\/html/);
    expect(deep.headers.get('cache-control')).toBe('no-cache');
    expect(deep.headers.get('x-frame-options')).toBe('DENY');
    // The inline script of index.html is allowed by its hash, nothing else inline.
    const hash = createHash('sha256').update('window.ok = 1;').digest('base64');
    expect(deep.headers.get('content-security-policy')).toContain(`script-src 'self' 'sha256-${hash}';`);
    expect(deep.headers.get('content-security-policy')).not.toMatch(/script-src [^;]*unsafe-inline/);

    const asset = await t.request('/assets/index-abc123.js');
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(asset.headers.get('content-type')).toMatch(/javascript/);

    expect((await t.request('/assets/index-old999.js')).status).toBe(404);
    expect((await t.request('/favicon.svg')).headers.get('content-type')).toMatch(/svg/);
    expect((await t.request('/../secret.txt')).status).not.toBe(500);
    const traversal = await t.request('/%2e%2e/secret.txt');
    expect(await traversal.text()).not.toBe('no');
  });

  it('staff API on the same app works with a bearer token', async () => {
    const token = await t.login('employee');
    const { status, body } = await t.json<{ user: { role: string } }>('/backend/auth/me', bearer(token));
    expect(status).toBe(200);
    expect(body.user.role).toBe('employee');
  });

  it('a dashboard with no orders answers zeros for today', async () => {
    const { body } = await t.json<{ today: { orders: number; amount_fen: number; date: string } }>(
      '/backend/dashboard',
      bearer(await t.login('merchant')),
    );
    expect(body.today).toMatchObject({ orders: 0, amount_fen: 0 });
    expect(body.today.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });
});
