import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { count, eq } from 'drizzle-orm';
import { accounts, auth_tokens, login_attempts, merchants } from '../../../server/db/schema';
import { hashToken } from '../../../server/auth/tokens';
import { hashPassword, verifyPassword } from '../../../server/auth/password';
import { bearer, createTestApp, postJson, type TestApp } from '../test-app';
import { FEATURES } from '../../../src/domain/levels';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('passwords', () => {
  it('hashes with scrypt and a salt, verifies only the right password', async () => {
    const a = await hashPassword('s3cret');
    const b = await hashPassword('s3cret');
    expect(a).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword('s3cret', a)).toBe(true);
    expect(await verifyPassword('s3cret!', a)).toBe(false);
    expect(await verifyPassword('s3cret', 'garbage')).toBe(false);
  });
});

describe('staff sign-in', () => {
  it('logs in, answers /me with the level features from the DB, and logs out (revoking the token)', async () => {
    const { status, body } = await t.json<{ token: string; user: Record<string, unknown> }>(
      '/backend/auth/login',
      postJson({ username: 'merchant', password: 'demo1234' }),
    );
    expect(status).toBe(200);
    expect(body.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(body.user).toEqual({
      id: expect.any(Number),
      name: expect.any(String),
      role: 'merchant',
      level: 2,
      merchant_id: 1,
    });

    // Only the hash is stored.
    const stored = await t.deps.db
      .select()
      .from(auth_tokens)
      .where(eq(auth_tokens.token_hash, hashToken(body.token)));
    expect(stored).toHaveLength(1);
    const raw = await t.deps.db.select().from(auth_tokens).where(eq(auth_tokens.token_hash, body.token));
    expect(raw).toHaveLength(0);

    const me = await t.json<{ user: { level: number }; features: string[] }>(
      '/backend/auth/me',
      bearer(body.token),
    );
    expect(me.status).toBe(200);
    expect(me.body.user.level).toBe(2);
    expect(me.body.features).toContain('merchant.venues');
    expect(me.body.features).not.toContain('admin.permissions');
    expect(me.body.features).not.toContain('employee.cashRecharge');

    const out = await t.json('/backend/auth/logout', { method: 'POST', ...bearer(body.token) });
    expect(out.status).toBe(200);
    const after = await t.json<{ code: string }>('/backend/auth/me', bearer(body.token));
    expect(after.status).toBe(401);
    expect(after.body.code).toBe('UNAUTHORIZED');
  });

  it('gives level 1 every feature and level 3 only wallet', async () => {
    const admin = await t.json<{ features: string[] }>('/backend/auth/me', bearer(await t.login('admin')));
    expect(admin.body.features).toContain('admin.permissions');
    expect(admin.body.features.length).toBe(FEATURES.length);
    const partner = await t.json<{ features: string[] }>(
      '/backend/auth/me',
      bearer(await t.login('partner')),
    );
    expect(partner.body.features).toEqual(['wallet']);
  });

  it('answers a wrong password and an unknown user the same way', async () => {
    const wrong = await t.json(
      '/backend/auth/login',
      postJson({ username: 'employee', password: 'nope-nope' }),
    );
    const unknown = await t.json(
      '/backend/auth/login',
      postJson({ username: 'nobody-here', password: 'nope-nope' }),
    );
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual({ code: 'INVALID_CREDENTIALS', message: '用户名或密码错误' });
    expect(unknown.body).toEqual(wrong.body);
    // A success clears the username's failure counter.
    await t.login('employee');
    const left = await t.deps.db.select().from(login_attempts).where(eq(login_attempts.key, 'u:employee'));
    expect(left).toHaveLength(0);
  });

  it('refuses missing, malformed, unknown, expired and revoked tokens with 401', async () => {
    expect((await t.request('/backend/auth/me')).status).toBe(401);
    expect((await t.request('/backend/auth/me', bearer('x'))).status).toBe(401);
    expect(
      (await t.request('/backend/auth/me', { headers: { authorization: 'Basic YWRtaW46ZGVtbzEyMzQ=' } }))
        .status,
    ).toBe(401);
    expect((await t.request('/backend/auth/me', bearer('A'.repeat(43)))).status).toBe(401);

    const token = await t.login('employee');
    expect((await t.request('/backend/auth/me', bearer(token))).status).toBe(200);
    // Expired: move the clock past the TTL.
    t.advance(t.deps.env.TOKEN_TTL_HOURS * 3600_000 + 1000);
    try {
      const expired = await t.json<{ code: string }>('/backend/auth/me', bearer(token));
      expect(expired.status).toBe(401);
      expect(expired.body.code).toBe('UNAUTHORIZED');
    } finally {
      t.advance(-(t.deps.env.TOKEN_TTL_HOURS * 3600_000 + 1000));
    }
    // Revoked directly in the DB (as another instance's logout would do).
    await t.deps.db
      .update(auth_tokens)
      .set({ revoked_at: new Date() })
      .where(eq(auth_tokens.token_hash, hashToken(token)));
    expect((await t.request('/backend/auth/me', bearer(token))).status).toBe(401);
  });

  it('refuses the token of a disabled account', async () => {
    const token = await t.login('partner');
    await t.deps.db.update(accounts).set({ status: 'disabled' }).where(eq(accounts.username, 'partner'));
    try {
      expect((await t.request('/backend/auth/me', bearer(token))).status).toBe(401);
      const again = await t.json(
        '/backend/auth/login',
        postJson({ username: 'partner', password: 'demo1234' }),
      );
      expect(again.status).toBe(401);
    } finally {
      await t.deps.db.update(accounts).set({ status: 'active' }).where(eq(accounts.username, 'partner'));
      await t.deps.db.delete(login_attempts);
    }
  });

  it('refuses the staff of a disabled merchant (sign-in 403, existing tokens 401), not the platform admin', async () => {
    const token = await t.login('employee');
    const adminToken = await t.login('admin');
    await t.deps.db.update(merchants).set({ status: 'disabled' }).where(eq(merchants.id, 1));
    try {
      expect((await t.request('/backend/auth/me', bearer(token))).status).toBe(401);
      expect((await t.request('/backend/auth/me', bearer(adminToken))).status).toBe(200);
      const again = await t.json<{ code: string }>(
        '/backend/auth/login',
        postJson({ username: 'merchant', password: 'demo1234' }),
      );
      expect(again.status).toBe(403);
      expect(again.body.code).toBe('MERCHANT_DISABLED');
    } finally {
      await t.deps.db.update(merchants).set({ status: 'active' }).where(eq(merchants.id, 1));
    }
    expect((await t.request('/backend/auth/me', bearer(token))).status).toBe(200);
  });

  it('slows repeated failures, then refuses with 429 and Retry-After, even with the right password', async () => {
    const tokensBefore = (await t.deps.db.select({ n: count() }).from(auth_tokens))[0]!.n;
    const statuses: number[] = [];
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      const res = await t.request(
        '/backend/auth/login',
        postJson({ username: 'admin', password: `wrong-${i}` }),
      );
      times.push(performance.now() - started);
      statuses.push(res.status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 429]);
    // From the third failure on, answers are delayed.
    expect(times[3]!).toBeGreaterThanOrEqual(400);

    const locked = await t.json<{ code: string; message: string }>(
      '/backend/auth/login',
      postJson({ username: 'admin', password: 'demo1234' }),
    );
    expect(locked.status).toBe(429);
    expect(locked.body.code).toBe('TOO_MANY_ATTEMPTS');
    expect(locked.body.message).toMatch(/分钟后再试/);
    expect(Number(locked.res.headers.get('retry-after'))).toBeGreaterThan(60);
    expect((await t.deps.db.select({ n: count() }).from(auth_tokens))[0]!.n).toBe(tokensBefore);

    // The lock is per username: others can still sign in.
    await t.login('merchant');
    // After the lock window the right password works again.
    t.advance(16 * 60_000);
    try {
      expect(await t.login('admin')).toMatch(/.{43}/);
    } finally {
      t.advance(-16 * 60_000);
    }
  });
});
