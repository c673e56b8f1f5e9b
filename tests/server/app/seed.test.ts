import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asc, count, eq } from 'drizzle-orm';
import { defaultPermissionRows, FEATURES } from '../../../src/domain/levels';
import {
  accounts,
  devices,
  merchants,
  packages,
  permissions,
  products,
  service_prices,
  share_rules,
  venues,
  wallets,
} from '../../../server/db/schema';
import { demoInfo, ensureBaseData, seedDemo } from '../../../server/seed';
import { createTestApp, type TestApp } from '../test-app';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('demo seed (docs/decisions.md D10)', () => {
  it('creates the four demo accounts with their levels, all signing in with demo1234', async () => {
    const rows = await t.deps.db.select().from(accounts).orderBy(asc(accounts.level));
    expect(rows.map((a) => [a.username, a.level, a.role])).toEqual([
      ['admin', 1, 'admin'],
      ['merchant', 2, 'merchant'],
      ['partner', 3, 'partner'],
      ['employee', 4, 'employee'],
    ]);
    const [m] = await t.deps.db.select().from(merchants);
    expect(rows[0]!.merchant_id).toBeNull();
    for (const a of rows.slice(1)) expect(a.merchant_id).toBe(m!.id);
    expect(m!.owner_account_id).toBe(rows[1]!.id);
    for (const a of rows) expect(await t.login(a.username)).toBeTruthy();
  });

  it('one merchant, two venues with prices, two packages, two products, devices 1..6 over both venues', async () => {
    const db = t.deps.db;
    expect((await db.select({ n: count() }).from(merchants))[0]!.n).toBe(1);
    const vs = await db.select().from(venues).orderBy(asc(venues.id));
    expect(vs).toHaveLength(2);
    for (const v of vs) {
      const prices = await db.select().from(service_prices).where(eq(service_prices.venue_id, v.id));
      expect(prices.map((p) => [p.minutes, p.price_fen])).toEqual([
        [30, 200],
        [60, 350],
        [120, 600],
      ]);
    }
    const pk = await db.select().from(packages).orderBy(asc(packages.pay_fen));
    expect(pk.map((p) => [p.pay_fen, p.bonus_fen])).toEqual([
      [5000, 500],
      [10000, 1500],
    ]);
    expect((await db.select().from(products)).map((p) => p.name)).toEqual(['智能充电桩', '共享按摩椅']);
    const ds = await db.select().from(devices).orderBy(asc(devices.id));
    expect(ds.map((d) => d.id)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(new Set(ds.map((d) => d.venue_id))).toEqual(new Set(vs.map((v) => v.id)));
    expect(new Set(ds.map((d) => d.product_id)).size).toBe(2);
  });

  it('a partner with 20% of venue 1, the default matrix and the system wallets', async () => {
    const db = t.deps.db;
    const [partner] = await db.select().from(accounts).where(eq(accounts.username, 'partner'));
    const rules = await db.select().from(share_rules);
    expect(rules).toHaveLength(1);
    expect(rules[0]).toMatchObject({ venue_id: 1, partner_account_id: partner!.id, ratio_bp: 2000 });
    const matrix = await db.select().from(permissions);
    expect(matrix).toHaveLength(defaultPermissionRows().length);
    const ws = await db.select().from(wallets);
    expect(ws.map((w) => `${w.kind}:${w.code ?? w.merchant_id ?? ''}`).sort()).toEqual(
      [
        'external:cash',
        'external:payout',
        'external:wechat',
        'merchant:1',
        'partner:1',
        'platform:platform',
      ].sort(),
    );
    for (const w of ws) expect([w.principal_fen, w.bonus_fen, w.frozen_fen]).toEqual([0, 0, 0]);
  });

  it('seeds only an empty database, and base data is idempotent', async () => {
    expect(await seedDemo(t.deps.db)).toBe(false);
    await ensureBaseData(t.deps.db);
    expect((await t.deps.db.select({ n: count() }).from(accounts))[0]!.n).toBe(4);
    expect((await t.deps.db.select({ n: count() }).from(wallets))[0]!.n).toBe(6);
    expect((await t.deps.db.select({ n: count() }).from(permissions))[0]!.n).toBe(FEATURES.length * 4);
  });

  it('prints pay links for the demo devices', async () => {
    const info = await demoInfo(t.deps.db, 'http://localhost:8080');
    expect(info.devices[0]!.pay_link).toBe('http://localhost:8080/user/pay?device_id=1&venue_id=1');
    expect(info.devices).toHaveLength(6);
    expect(info.accounts.map((a) => a.username)).toEqual(['admin', 'merchant', 'partner', 'employee']);
  });
});

describe('SEED=none', () => {
  it('leaves the database without demo data but with the matrix and system wallets', async () => {
    const bare = await createTestApp({ seed: false });
    try {
      expect((await bare.deps.db.select({ n: count() }).from(accounts))[0]!.n).toBe(0);
      expect((await bare.deps.db.select({ n: count() }).from(devices))[0]!.n).toBe(0);
      expect((await bare.deps.db.select({ n: count() }).from(permissions))[0]!.n).toBe(FEATURES.length * 4);
      expect((await bare.deps.db.select({ n: count() }).from(wallets))[0]!.n).toBe(4);
    } finally {
      await bare.close();
    }
  });
});
