/**
 * `/backend/admin/merchants` against the real app and database: the admin lists, searches, filters, adds (with the
 * owner account, who can then sign in) and edits merchants; a taken username is a 409 that names the field; every
 * other level gets 403 whatever headers it forges, no token 401; bad input is a 400 naming the fields and changes
 * nothing (property-based); every write leaves an audit row.
 */
import { and, count, eq } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from '../../../src/domain/api';
import type { Merchant } from '../../../src/domain/merchants.schema';
import { accounts, audit_log, merchants, wallets } from '../../../server/db/schema';
import { asStaff, createTestApp, postJson, sendJson, type TestApp } from '../test-app';

let t: TestApp;
let admin: string;
beforeAll(async () => {
  t = await createTestApp();
  admin = await t.login('admin');
});
afterAll(async () => t?.close());

const as = asStaff;
const send = sendJson;
const snapshot = async () => ({
  merchants: await t.deps.db.select().from(merchants).orderBy(merchants.id),
  accounts: (await t.deps.db.select({ n: count() }).from(accounts))[0]!.n,
  audits: (await t.deps.db.select({ n: count() }).from(audit_log))[0]!.n,
});
type ErrorBody = { code: string; message: string; details?: Record<string, string> };

const newMerchant = (n: string, extra: Record<string, unknown> = {}) => ({
  name: `测试商户${n}`,
  contact_name: `联系人${n}`,
  contact_phone: '13900000000',
  fee_rate_bp: 550,
  owner_username: `owner_${n}`,
  owner_password: 'secret-pass-1',
  ...extra,
});

describe('merchants', () => {
  it('lists the demo merchant with its owner, in the fixed shape', async () => {
    const { status, body } = await t.json<Page<Merchant>>('/backend/admin/merchants', as(admin));
    expect(status).toBe(200);
    expect(body).toMatchObject({ total: 1, page: 1, page_size: 20 });
    expect(body.items[0]).toEqual({
      id: 1,
      name: '星河共享自助',
      contact_name: '陈星河',
      contact_phone: '13800000002',
      fee_rate_bp: 600,
      status: 'active',
      owner: { id: expect.any(Number), username: 'merchant', name: expect.any(String) },
      created_at: expect.any(String),
    });
  });

  it('adds a merchant and its owner in one transaction; the owner signs in at level 2', async () => {
    const { status, body } = await t.json<Merchant>(
      '/backend/admin/merchants',
      as(admin, send('POST', newMerchant('a', { name: '  湖畔洗衣  ' }))),
    );
    expect(status).toBe(201);
    expect(body).toMatchObject({
      name: '湖畔洗衣',
      contact_name: '联系人a',
      fee_rate_bp: 550,
      status: 'active',
      owner: { username: 'owner_a', name: '联系人a' },
    });
    const [owner] = await t.deps.db.select().from(accounts).where(eq(accounts.username, 'owner_a'));
    expect(owner).toMatchObject({ level: 2, role: 'merchant', merchant_id: body.id, status: 'active' });
    expect(owner!.password_hash).toMatch(/^scrypt\$/);
    expect(owner!.password_hash).not.toContain('secret-pass-1');
    // Its settlement wallet exists from the start (the wallet screen shows ¥0.00, not an error).
    const [wallet] = await t.deps.db
      .select()
      .from(wallets)
      .where(and(eq(wallets.kind, 'merchant'), eq(wallets.merchant_id, body.id)));
    expect(wallet).toBeDefined();

    const login = await t.json<{ user: { level: number; merchant_id: number; role: string } }>(
      '/backend/auth/login',
      postJson({ username: 'owner_a', password: 'secret-pass-1' }),
    );
    expect(login.status).toBe(200);
    expect(login.body.user).toMatchObject({ level: 2, role: 'merchant', merchant_id: body.id });

    const audits = await t.deps.db
      .select()
      .from(audit_log)
      .where(and(eq(audit_log.entity, 'merchants'), eq(audit_log.entity_id, String(body.id))));
    expect(audits).toHaveLength(1);
    expect(audits[0]).toMatchObject({ action: 'merchants.create', merchant_id: body.id });
    expect(audits[0]!.details).toMatchObject({ after: { name: '湖畔洗衣', owner: { username: 'owner_a' } } });
    expect(JSON.stringify(audits[0]!.details)).not.toContain('secret-pass-1');
  });

  it('refuses a username already taken with 409 naming the field, and changes nothing', async () => {
    const before = await snapshot();
    for (const username of ['merchant', 'owner_a', 'admin']) {
      const { status, body } = await t.json<ErrorBody>(
        '/backend/admin/merchants',
        as(admin, send('POST', newMerchant('dup', { owner_username: username }))),
      );
      expect(status).toBe(409);
      expect(body.code).toBe('USERNAME_TAKEN');
      expect(body.message).toContain(`登录账号「${username}」已被使用`);
      expect(body.details?.owner_username).toBeTruthy();
    }
    expect(await snapshot()).toEqual(before);
  });

  it('adds two merchants with the same new username at once: one succeeds, the other is a 409', async () => {
    const results = await Promise.all(
      ['x', 'y'].map((n) =>
        t.json<ErrorBody>(
          '/backend/admin/merchants',
          as(admin, send('POST', newMerchant(n, { owner_username: 'owner_race' }))),
        ),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    const rows = await t.deps.db.select().from(accounts).where(eq(accounts.username, 'owner_race'));
    expect(rows).toHaveLength(1);
    const names = (await t.deps.db.select({ name: merchants.name }).from(merchants)).map((m) => m.name);
    expect(names.filter((n) => n === '测试商户x' || n === '测试商户y')).toHaveLength(1);
  });

  it('searches by name, contact, phone and owner username (literally), filters by status, pages', async () => {
    await t.json(
      '/backend/admin/merchants',
      as(admin, send('POST', newMerchant('b', { contact_phone: '021-5550000' }))),
    );
    const search = async (q: string) =>
      (await t.json<Page<Merchant>>(`/backend/admin/merchants?q=${encodeURIComponent(q)}`, as(admin))).body;
    expect((await search('星河')).items.map((m) => m.id)).toEqual([1]);
    expect((await search('联系人b')).items.map((m) => m.owner?.username)).toEqual(['owner_b']);
    expect((await search('5550000')).items.map((m) => m.owner?.username)).toEqual(['owner_b']);
    expect((await search('OWNER_A')).items.map((m) => m.owner?.username)).toEqual(['owner_a']);
    expect((await search('%')).total).toBe(0);
    expect((await search('_')).items.map((m) => m.owner?.username).sort()).toEqual([
      'owner_a',
      'owner_b',
      'owner_race',
    ]);
    const all = (await t.json<Page<Merchant>>('/backend/admin/merchants', as(admin))).body;
    const paged = await t.json<Page<Merchant>>('/backend/admin/merchants?page=2&page_size=2', as(admin));
    expect(paged.body).toMatchObject({ page: 2, page_size: 2, total: all.total });
    expect(paged.body.items.map((m) => m.id)).toEqual(all.items.slice(2, 4).map((m) => m.id));
    const big = await t.json<Page<Merchant>>('/backend/admin/merchants?page_size=100', as(admin));
    expect(big.body.items).toHaveLength(all.total);
  });

  it('edits contact, phone, fee rate and name; one audit row with before and after', async () => {
    const id = (await t.json<Page<Merchant>>('/backend/admin/merchants?q=owner_b', as(admin))).body.items[0]!
      .id;
    const { status, body } = await t.json<Merchant>(
      `/backend/admin/merchants/${id}`,
      as(
        admin,
        send('PUT', { contact_name: '王五', contact_phone: '13700000000', fee_rate_bp: 0, name: '新名字' }),
      ),
    );
    expect(status).toBe(200);
    expect(body).toMatchObject({
      id,
      name: '新名字',
      contact_name: '王五',
      fee_rate_bp: 0,
      status: 'active',
    });
    expect((await t.json<Merchant>(`/backend/admin/merchants/${id}`, as(admin))).body).toEqual(body);
    const full = await t.json<Merchant>(
      `/backend/admin/merchants/${id}`,
      as(admin, send('PUT', { fee_rate_bp: 10000 })),
    );
    expect(full.body.fee_rate_bp).toBe(10000);
    const audits = await t.deps.db
      .select()
      .from(audit_log)
      .where(and(eq(audit_log.action, 'merchants.update'), eq(audit_log.entity_id, String(id))))
      .orderBy(audit_log.id);
    expect(audits).toHaveLength(2);
    expect(audits[0]!.details).toMatchObject({
      before: { name: '测试商户b', fee_rate_bp: 550 },
      after: { name: '新名字', fee_rate_bp: 0 },
    });
    expect(audits[0]!.account_id).not.toBeNull();
  });

  it('filters by status after disabling; disabling and enabling are their own audit actions', async () => {
    const id = (await t.json<Page<Merchant>>('/backend/admin/merchants?q=owner_a', as(admin))).body.items[0]!
      .id;
    const off = await t.json<Merchant>(
      `/backend/admin/merchants/${id}`,
      as(admin, send('PUT', { status: 'disabled' })),
    );
    expect(off.body.status).toBe('disabled');
    const disabled = await t.json<Page<Merchant>>('/backend/admin/merchants?status=disabled', as(admin));
    expect(disabled.body.items.map((m) => m.id)).toEqual([id]);
    const active = await t.json<Page<Merchant>>('/backend/admin/merchants?status=active', as(admin));
    expect(active.body.items.map((m) => m.id)).not.toContain(id);
    await t.json(`/backend/admin/merchants/${id}`, as(admin, send('PUT', { status: 'active' })));
    const actions = await t.deps.db
      .select({ action: audit_log.action })
      .from(audit_log)
      .where(eq(audit_log.entity_id, String(id)))
      .orderBy(audit_log.id);
    expect(actions.map((a) => a.action)).toEqual([
      'merchants.create',
      'merchants.disable',
      'merchants.enable',
    ]);
  });

  it('merchant, partner and employee get 403 on every call, forged headers or not; no token is 401', async () => {
    const before = await snapshot();
    const forged = { 'X-UserLevel': '1', 'X-MerchantID': '' };
    const calls = [
      ['/backend/admin/merchants', {}],
      ['/backend/admin/merchants/1', {}],
      ['/backend/admin/merchants', send('POST', newMerchant('forged'))],
      ['/backend/admin/merchants/1', send('PUT', { status: 'disabled' })],
    ] as const;
    for (const username of ['merchant', 'partner', 'employee']) {
      const token = await t.login(username);
      for (const [path, init] of calls) {
        const headers = { ...forged, ...((init as RequestInit).headers as Record<string, string>) };
        const res = await t.request(path, as(token, { ...init, headers }));
        expect(res.status, `${username} ${(init as RequestInit).method ?? 'GET'} ${path}`).toBe(403);
      }
    }
    for (const [path, init] of calls) {
      const res = await t.request(path, {
        ...init,
        headers: { ...forged, ...(init as RequestInit).headers },
      });
      expect(res.status).toBe(401);
    }
    expect(await snapshot()).toEqual(before);
  });

  it('bad input is a 400 naming the fields, and changes nothing (property-based)', async () => {
    const before = await snapshot();
    const badFee = fc.oneof(
      fc.constantFrom(-1, 10001, 1.5, '600', null, true, [600], 1e12),
      fc.double({ noInteger: true, noNaN: true }),
      fc.integer({ max: -1 }),
      fc.integer({ min: 10001 }),
    );
    const badField = fc.oneof(
      fc.constantFrom('', '   ', 'x'.repeat(65), 7, null).map((v) => ['name', v] as const),
      badFee.map((v) => ['fee_rate_bp', v] as const),
      fc
        .constantFrom('', 'ab', '中文名字', 'has space', 'x'.repeat(33), 12345, 'a/b')
        .map((v) => ['owner_username', v] as const),
      fc.constantFrom('short', 'p'.repeat(129), 12345678, null).map((v) => ['owner_password', v] as const),
      fc.constantFrom('call me', '1'.repeat(30), 13900000000).map((v) => ['contact_phone', v] as const),
      fc.constantFrom('y'.repeat(33), 5, {}).map((v) => ['contact_name', v] as const),
    );
    const missing = fc.constantFrom('name', 'owner_username', 'owner_password');
    await fc.assert(
      fc.asyncProperty(fc.oneof(badField, missing), async (bad) => {
        const body: Record<string, unknown> = newMerchant('bad');
        const field = typeof bad === 'string' ? bad : bad[0];
        if (typeof bad === 'string') delete body[bad];
        else body[bad[0]] = bad[1];
        const res = await t.json<ErrorBody>('/backend/admin/merchants', as(admin, send('POST', body)));
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.code).toBe('VALIDATION_FAILED');
        expect(Object.keys(res.body.details ?? {})).toContain(field);
      }),
      { numRuns: 80 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          badFee.map((v) => ({ fee_rate_bp: v })),
          fc.constantFrom({ status: 'gone' }, { status: 1 }, { name: '' }, { contact_phone: 'x' }),
        ),
        async (body) => {
          const res = await t.json<ErrorBody>('/backend/admin/merchants/1', as(admin, send('PUT', body)));
          expect(res.status).toBe(400);
          expect(Object.keys(res.body.details ?? {})).toEqual(Object.keys(body));
        },
      ),
      { numRuns: 40 },
    );
    for (const id of ['0', 'abc', '1.5', '99999999999', '-1']) {
      const res = await t.request(`/backend/admin/merchants/${id}`, as(admin, send('PUT', { name: 'x' })));
      expect(res.status, id).toBe(400);
    }
    expect(
      (await t.request('/backend/admin/merchants/9999', as(admin, send('PUT', { name: 'x' })))).status,
    ).toBe(404);
    expect((await t.request('/backend/admin/merchants/9999', as(admin))).status).toBe(404);
    const text = await t.request(
      '/backend/admin/merchants',
      as(admin, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: JSON.stringify(newMerchant('t')),
      }),
    );
    expect(text.status).toBe(415);
    for (const q of ['status=gone', 'page=0', 'page_size=101', `q=${'z'.repeat(65)}`]) {
      expect((await t.request(`/backend/admin/merchants?${q}`, as(admin))).status, q).toBe(400);
    }
    expect(await snapshot()).toEqual(before);
  });
});
