/**
 * The sign-in limiter refuses the failing address, never the account (finding 1, docs/security.md): five wrong
 * passwords for admin from one address lock that address out of admin, while the right password from another
 * address still signs in; one address failing on many accounts is refused as a whole only after 50 failures; the
 * account's own slowdown is capped at 3 s. Addresses come from X-Forwarded-For behind TRUST_PROXY.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS, delayFor } from '../../../server/lib/login-limiter';
import { createTestApp, postJson, type TestApp } from '../test-app';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: { TRUST_PROXY: true } });
});
afterAll(async () => t?.close());

const from = (ip: string, username: string, password: string) =>
  t.json<{ code?: string; token?: string }>(
    '/backend/auth/login',
    postJson({ username, password }, { 'X-Forwarded-For': ip }),
  );

describe('sign-in limits', () => {
  it('five failures lock the address out of that account; the right password from elsewhere still signs in', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await from('203.0.113.7', 'admin', `wrong-${i}`)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 429]);
    const sameAddress = await from('203.0.113.7', 'admin', 'demo1234');
    expect(sameAddress.status).toBe(429);
    expect(sameAddress.body.code).toBe('TOO_MANY_ATTEMPTS');
    const elsewhere = await from('198.51.100.20', 'admin', 'demo1234');
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body.token).toBeTruthy();
    // The locked address may still sign in to other accounts (a shared NAT keeps working).
    expect((await from('203.0.113.7', 'merchant', 'demo1234')).status).toBe(200);
  });

  it('failures spread over many accounts refuse the address only after 50, and never other addresses', async () => {
    const ip = '192.0.2.44';
    const statuses: number[] = [];
    for (let i = 0; i < LIMITS.ip.lockAfter; i++) {
      // Distinct unknown accounts, so no pair reaches its own limit.
      statuses.push((await from(ip, `nobody-${i}`, 'x')).status);
    }
    expect(statuses.slice(0, LIMITS.ip.lockAfter - 1).every((s) => s === 401)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
    expect((await from(ip, 'employee', 'demo1234')).status).toBe(429);
    expect((await from('192.0.2.45', 'employee', 'demo1234')).status).toBe(200);
  }, 120_000);

  it("the account's own delay grows but stays a few seconds, and the pair's and address's stay under 2 s", () => {
    const account = [...Array(1000).keys()].map((n) =>
      delayFor(n, LIMITS.account.slowAfter, LIMITS.maxAccountDelayMs),
    );
    expect(account[LIMITS.account.slowAfter - 1]).toBe(0);
    expect(account[LIMITS.account.slowAfter + 2]!).toBeGreaterThan(account[LIMITS.account.slowAfter]!);
    expect(Math.max(...account)).toBe(3000);
    expect(Math.max(...[...Array(1000).keys()].map((n) => delayFor(n, LIMITS.pair.slowAfter)))).toBe(1500);
    expect(Number.isFinite(LIMITS.account.lockAfter)).toBe(false);
  });
});
