// @vitest-environment node
/**
 * The header and error rules of src/http (docs/decisions.md D1, D2) against the real server app
 * (`app.request`, real DB, real tokens) with happy-dom's real Storage objects; timeouts and network failures
 * against a real listening server on 127.0.0.1.
 */
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { Window } from 'happy-dom';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ThrownRequestError } from '../../src/domain/outcome';
import {
  configureHttp,
  http,
  request,
  resetHttp,
  WECHAT_AUTH_MESSAGE,
  WECHAT_AUTH_REQUIRED,
} from '../../src/http/client';
import {
  PARSE_ERROR_MESSAGE,
  readToken,
  writeSession,
  type SessionStores,
} from '../../src/http/session-storage';
import { staffApi } from '../../src/http/staff-api';
import { createTestApp, type TestApp } from '../server/test-app';

let t: TestApp;
let stores: SessionStores;
let seen: { url: string; headers: Headers }[];
let navigations: string[];
let logs: string[];
let unauthorizedCalls: number;
let here: string;

function configure(extra: Parameters<typeof configureHttp>[0] = {}) {
  configureHttp({
    stores,
    navigate: (p) => navigations.push(p),
    currentPath: () => here,
    onUnauthorized: undefined,
    log: (m) => logs.push(m),
    fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
      seen.push({ url: String(input), headers: new Headers(init?.headers) });
      return t.app.request(String(input), init);
    }) as typeof fetch,
    ...extra,
  });
}

beforeAll(async () => {
  t = await createTestApp();
}, 60_000);
afterAll(async () => {
  resetHttp();
  await t?.close();
});

beforeEach(() => {
  const win = new Window({ url: 'http://127.0.0.1/' });
  stores = {
    local: win.localStorage as unknown as Storage,
    session: win.sessionStorage as unknown as Storage,
  };
  seen = [];
  navigations = [];
  logs = [];
  unauthorizedCalls = 0;
  here = '/dashboard';
  configure();
});

async function signIn(username: string) {
  const { token, user } = await staffApi.login({ username, password: 'demo1234' });
  writeSession(stores, token, user as unknown as Record<string, unknown>);
  return { token, user };
}

describe('headers', () => {
  it('staff calls carry the bearer, X-UserLevel and X-MerchantID of the stored user', async () => {
    const { token, user } = await signIn('merchant');
    const me = await staffApi.me();
    expect(me.user.id).toBe(user.id);
    const h = seen.at(-1)!.headers;
    expect(seen.at(-1)!.url).toBe('/backend/auth/me');
    expect(h.get('authorization')).toBe(`Bearer ${token}`);
    expect(h.get('x-userlevel')).toBe('2');
    expect(h.get('x-merchantid')).toBe(String(user.merchant_id));
    expect(h.get('content-type')).toBe('application/json');
    expect(h.get('accept')).toBe('application/json');
  });

  it('no bearer on URLs containing /api/ or /user/, user headers still sent', async () => {
    const { user } = await signIn('merchant');
    await http.get('/api/devices/1');
    await expect(http.get('/user/profile')).rejects.toBeInstanceOf(ThrownRequestError);
    for (const s of seen.slice(-2)) {
      expect(s.headers.get('authorization')).toBeNull();
      expect(s.headers.get('x-userlevel')).toBe('2');
      expect(s.headers.get('x-merchantid')).toBe(String(user.merchant_id));
    }
  });

  it('without a stored user: X-UserLevel 1 and no X-MerchantID; admin has no merchant header either', async () => {
    await http.get('/api/devices/1');
    expect(seen.at(-1)!.headers.get('x-userlevel')).toBe('1');
    expect(seen.at(-1)!.headers.has('x-merchantid')).toBe(false);
    await signIn('admin');
    await staffApi.me();
    expect(seen.at(-1)!.headers.get('x-userlevel')).toBe('1');
    expect(seen.at(-1)!.headers.has('x-merchantid')).toBe(false);
  });

  it('an unreadable stored user is logged and the request goes out without user headers', async () => {
    const { token } = await signIn('merchant');
    stores.local!.setItem('user', '{broken');
    await staffApi.me();
    const h = seen.at(-1)!.headers;
    expect(logs).toContain(PARSE_ERROR_MESSAGE);
    expect(h.has('x-userlevel')).toBe(false);
    expect(h.has('x-merchantid')).toBe(false);
    expect(h.get('authorization')).toBe(`Bearer ${token}`);
  });

  it('the token in session storage only is used when local storage has none', async () => {
    const { token, user } = await staffApi.login({ username: 'employee', password: 'demo1234' });
    stores.session!.setItem('token', token);
    stores.session!.setItem('user', JSON.stringify(user));
    await staffApi.me();
    expect(seen.at(-1)!.headers.get('authorization')).toBe(`Bearer ${token}`);
    expect(seen.at(-1)!.headers.get('x-userlevel')).toBe('4');
  });
});

describe('error catalogue', () => {
  it('404 is passed to the caller unchanged (the server code and message), nothing else happens', async () => {
    await signIn('merchant');
    const err = (await http.get('/api/devices/999999').catch((e: unknown) => e)) as ThrownRequestError;
    expect(err).toBeInstanceOf(ThrownRequestError);
    expect(err.status).toBe(404);
    expect(err.message).toMatch(/[\u4e00-\u9fa5]/);
    expect(navigations).toEqual([]);
    expect(readToken(stores)).not.toBeNull();
  });

  it('401 on POST /user/pay: WECHAT_AUTH_REQUIRED / 需要微信授权, session untouched, no navigation', async () => {
    await signIn('merchant');
    const before = { token: stores.local!.getItem('token'), user: stores.local!.getItem('user') };
    configure({ onUnauthorized: () => unauthorizedCalls++ });
    const err = (await http
      .post('/user/pay', { device_id: 1, venue_id: 1, price_id: 1, method: 'wallet' })
      .catch((e: unknown) => e)) as ThrownRequestError;
    expect(err).toBeInstanceOf(ThrownRequestError);
    expect(err.status).toBe(401);
    expect(err.code).toBe(WECHAT_AUTH_REQUIRED);
    expect(err.message).toBe(WECHAT_AUTH_MESSAGE);
    expect({ token: stores.local!.getItem('token'), user: stores.local!.getItem('user') }).toEqual(before);
    expect(navigations).toEqual([]);
    expect(unauthorizedCalls).toBe(0);
  });

  it('401 on /user/using with a query string is WECHAT_AUTH_REQUIRED too', async () => {
    const err = (await http.get('/user/using?x=1').catch((e: unknown) => e)) as ThrownRequestError;
    expect(err.code).toBe(WECHAT_AUTH_REQUIRED);
  });

  it('401 elsewhere (revoked token): both storages cleared, session told, /admin-login', async () => {
    const { token, user } = await signIn('merchant');
    stores.session!.setItem('token', token);
    stores.session!.setItem('user', JSON.stringify(user));
    await staffApi.logout();
    const err = (await staffApi.me().catch((e: unknown) => e)) as ThrownRequestError;
    expect(err.status).toBe(401);
    for (const s of [stores.local!, stores.session!]) {
      expect(s.getItem('token')).toBeNull();
      expect(s.getItem('user')).toBeNull();
    }
    expect(navigations).toEqual(['/admin-login']);
  });

  it('401 elsewhere with a session hook: the hook decides (it logs out and navigates)', async () => {
    await signIn('merchant');
    await staffApi.logout();
    configure({ onUnauthorized: () => unauthorizedCalls++ });
    await expect(staffApi.me()).rejects.toMatchObject({ status: 401 });
    expect(unauthorizedCalls).toBe(1);
    expect(readToken(stores)).toBeNull();
  });

  it('401 while on /admin-login or /wechat-login clears storage but does not navigate', async () => {
    for (const page of ['/admin-login', '/wechat-login?redirect=%2Fuser%2Fpay']) {
      here = page;
      await signIn('merchant');
      await staffApi.logout();
      await expect(staffApi.me()).rejects.toMatchObject({ status: 401 });
      expect(readToken(stores)).toBeNull();
    }
    expect(navigations).toEqual([]);
  });

  it('other errors are logged and rejected with the server message (400 in Chinese)', async () => {
    const err = (await http
      .post('/auth/login', { username: '', password: '' })
      .catch((e: unknown) => e)) as ThrownRequestError;
    expect(err.status).toBe(400);
    expect(err.message).toMatch(/[\u4e00-\u9fa5]/);
    expect(logs.some((l) => l.includes('/auth/login'))).toBe(true);
  });
});

describe('generic failures (real listening server)', () => {
  let server: ServerType;
  let base: string;
  beforeAll(async () => {
    const slow = new Hono()
      .get('/backend/slow', async (c) => {
        await new Promise((r) => setTimeout(r, 12_000));
        return c.json({ ok: true });
      })
      // What the server received, read on the server side of a real HTTP connection.
      .all('/backend/echo', async (c) =>
        c.json({
          method: c.req.method,
          contentType: c.req.header('content-type') ?? null,
          accept: c.req.header('accept') ?? null,
          body: await c.req.text(),
        }),
      );
    base = await new Promise<string>((resolve) => {
      server = serve({ fetch: slow.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) =>
        resolve(`http://127.0.0.1:${info.port}/backend`),
      );
    });
  });
  afterAll(() => {
    (server as unknown as { closeAllConnections?: () => void } | undefined)?.closeAllConnections?.();
    server?.close();
  });

  it('every request arrives at the server with Content-Type and Accept application/json (docs/decisions.md D1)', async () => {
    configure({ fetch: undefined, baseURL: base });
    type Echo = { method: string; contentType: string | null; accept: string | null; body: string };
    const got = [
      await http.get<Echo>('/echo'),
      await http.post<Echo>('/echo', { amount: 1 }),
      await http.post<Echo>('/echo'),
      await http.put<Echo>('/echo', { a: 'b' }),
      await http.delete<Echo>('/echo'),
    ];
    expect(got.map((e) => [e.method, e.contentType, e.accept])).toEqual(
      ['GET', 'POST', 'POST', 'PUT', 'DELETE'].map((m) => [m, 'application/json', 'application/json']),
    );
    expect(got[1]!.body).toBe('{"amount":1}');
    // A form body keeps the type the browser gives it (with its multipart boundary).
    const form = new FormData();
    form.set('file', 'x');
    const upload = await http.post<Echo>('/echo', form);
    expect(upload.contentType).toMatch(/^multipart\/form-data; boundary=/);
  });

  it('Network Error when nothing answers', async () => {
    configure({ fetch: undefined, baseURL: 'http://127.0.0.1:9/backend' });
    await expect(request('/auth/me')).rejects.toMatchObject({ status: 0, message: 'Network Error' });
    expect(logs.some((l) => l.includes('/auth/me'))).toBe(true);
  });

  it('Request aborted when the caller aborts', async () => {
    configure({ fetch: undefined, baseURL: base });
    const ctrl = new AbortController();
    const pending = request('/slow', { signal: ctrl.signal });
    setTimeout(() => ctrl.abort(), 50);
    await expect(pending).rejects.toMatchObject({ status: 0, message: 'Request aborted' });
  });

  it('timeout exceeded after 10 000 ms', { timeout: 20_000 }, async () => {
    configure({ fetch: undefined, baseURL: base });
    const started = Date.now();
    await expect(request('/slow')).rejects.toMatchObject({ status: 0, message: 'timeout exceeded' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(9_900);
  });
});
