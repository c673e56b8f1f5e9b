/**
 * Fuzz over every mounted route, enumerated from the app itself (`app.routes`), so a route added later is covered
 * without touching this file (docs/security.md): wrong types, missing and unknown fields, NUL characters, huge
 * strings, malformed JSON, multipart and form bodies, broken query strings and path parameters, other merchants'
 * ids, each as an anonymous caller, a member, a merchant and the admin. The rule: never a 5xx, never a hang, and
 * every JSON error is `{ code, message }`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, postJson, signInMember, type TestWorld, WORLD } from '../test-app';

let t: TestWorld;
const auth: Record<string, Record<string, string>> = { anonymous: {} };

beforeAll(async () => {
  t = await createTestApp(WORLD);
  auth.member = { cookie: await signInMember(t, 'fuzz-member') };
  for (const username of ['merchant', 'admin']) {
    const { body } = await t.json<{ token: string }>(
      '/backend/auth/login',
      postJson({ username, password: 'demo1234' }),
    );
    // Forged headers ride along: they must change nothing.
    auth[username] = { Authorization: `Bearer ${body.token}`, 'X-UserLevel': '1', 'X-MerchantID': '2' };
  }
}, 60_000);
afterAll(async () => t?.close());

const PARAMS = ['1', '2', '999999', '0', '-1', 'abc', '1.5', '%00', '%E0%A4%A', 'x'.repeat(300)];
const QUERIES = [
  '',
  '?page=-1&page_size=abc&q=%00',
  '?%E0%A4%A=1&id=0x1&device_id=true&venue_id=[1]&merchant_id=2',
  `?q=${'y'.repeat(5000)}&order_no=${'z'.repeat(200)}&date=2026-13-45&from=x&to=y`,
];
const NUL = String.fromCharCode(0);
const JSON_BODIES: unknown[] = [
  {},
  null,
  [],
  'text',
  42,
  {
    id: true,
    device_id: [1],
    venue_id: '0x1',
    price_id: 1.5,
    merchant_id: 2,
    package_id: -1,
    method: 'cash',
  },
  { name: `a${NUL}b`, username: NUL, password: 'x'.repeat(10_000), amount_fen: -100, ratio_bp: 1e12 },
  { items: [{ level: 2, feature: 'merchant.venues', allowed: 'yes' }], unknown_field: { nested: [null] } },
  { mode: 'offline', reason: 'x'.repeat(60_000), action: 'confirm', out_trade_no: 'W1' },
];
const RAW_BODIES: { type?: string; body: string }[] = [
  { type: 'application/json', body: '{"a":' },
  { type: 'application/json', body: '\u0000' },
  { type: 'text/plain', body: '{"device_id":1}' },
  { type: 'multipart/form-data', body: 'no boundary' },
  { type: 'multipart/form-data; boundary=Z', body: '--Z\r\nbroken' },
  { type: 'application/x-www-form-urlencoded', body: 'a=%00&b=%E0%A4%A' },
  { body: 'x' },
];

function concrete(path: string, param: string): string {
  return path.replace(/:[A-Za-z_]+(\{[^}]*\})?/g, param);
}

interface Attempt {
  method: string;
  path: string;
  init: RequestInit;
}

function attemptsFor(method: string, path: string): Attempt[] {
  const out: Attempt[] = [];
  const params = path.includes(':') ? PARAMS : ['1'];
  for (const [who, headers] of Object.entries(auth)) {
    for (const p of params) {
      for (const q of who === 'anonymous' ? QUERIES : QUERIES.slice(0, 2)) {
        const url = concrete(path, p) + q;
        if (method === 'GET') {
          out.push({ method, path: url, init: { headers } });
          continue;
        }
        for (const b of JSON_BODIES) {
          out.push({
            method,
            path: url,
            init: {
              method,
              headers: { ...headers, 'Content-Type': 'application/json' },
              body: JSON.stringify(b),
            },
          });
        }
        if (p === '1' && q === '') {
          for (const r of RAW_BODIES) {
            out.push({
              method,
              path: url,
              init: {
                method,
                headers: { ...headers, ...(r.type ? { 'Content-Type': r.type } : {}) },
                body: r.body,
              },
            });
          }
        }
      }
    }
  }
  return out;
}

async function attempt(a: Attempt): Promise<{ status: number; problem?: string }> {
  const res = await Promise.race([
    t.request(a.path, a.init),
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no answer in 10 s')), 10_000)),
  ]);
  const text = await res.text();
  if (res.status >= 500) return { status: res.status, problem: text.slice(0, 200) };
  if (res.status >= 400 && (res.headers.get('content-type') ?? '').includes('application/json')) {
    const body = JSON.parse(text) as { code?: unknown; message?: unknown };
    if (typeof body.code !== 'string' || typeof body.message !== 'string') {
      return { status: res.status, problem: `error without code/message: ${text.slice(0, 200)}` };
    }
  }
  return { status: res.status };
}

describe('fuzz over every mounted route', () => {
  it('enumerates the routes from the app (a new route is covered automatically)', () => {
    const routes = fuzzedRoutes();
    expect(routes.length).toBeGreaterThan(30);
    expect(routes.map((r) => `${r.method} ${r.path}`)).toContain('POST /backend/user/pay');
  });

  it('answers every attempt below 500, in time, with { code, message } on JSON errors', async () => {
    const failures: string[] = [];
    let count = 0;
    for (const r of fuzzedRoutes()) {
      for (const a of attemptsFor(r.method, r.path)) {
        count++;
        const { status, problem } = await attempt(a);
        if (problem) failures.push(`${a.method} ${a.path.slice(0, 120)} -> ${status}: ${problem}`);
      }
    }
    expect(count).toBeGreaterThan(1000);
    expect(failures.slice(0, 20)).toEqual([]);
  }, 600_000);
});

function fuzzedRoutes(): { method: string; path: string }[] {
  const seen = new Set<string>();
  const out: { method: string; path: string }[] = [];
  for (const r of t.app.routes) {
    if (!['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].includes(r.method)) continue;
    if (!r.path.startsWith('/backend/') || r.path.includes('*')) continue;
    const key = `${r.method} ${r.path}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ method: r.method, path: r.path });
  }
  return out;
}
