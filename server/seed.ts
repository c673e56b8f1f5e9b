/**
 * Base data and demo data (docs/decisions.md D10).
 * - `ensureBaseData` runs on every start: the default permission matrix and the system wallets (platform fee,
 *   external WeChat clearing / cash drawer / payouts). Idempotent; it never overwrites an edited matrix.
 * - `seedDemo` fills an EMPTY database (no accounts) with the demo merchant; it is skipped when SEED=none.
 */
import { asc, count, eq, inArray, sql } from 'drizzle-orm';
import { defaultPermissionRows } from '../src/domain/levels';
import { hashPassword } from './auth/password';
import type { Db, Tx } from './db/client';
import {
  accounts,
  devices,
  merchants,
  packages,
  permissions,
  products,
  service_prices,
  share_rules,
  share_rule_changes,
  venues,
  wallets,
} from './db/schema';

export const DEMO_PASSWORD = 'demo1234';
export const DEMO_ACCOUNTS = [
  { username: 'admin', name: '平台管理员', role: 'admin', level: 1 },
  { username: 'merchant', name: '星河共享 · 陈老板', role: 'merchant', level: 2 },
  { username: 'partner', name: '合伙人 · 李娜', role: 'partner', level: 3 },
  { username: 'employee', name: '店员 · 王强', role: 'employee', level: 4 },
] as const;

/** System wallet codes (kind 'platform' / 'external'); the ledger looks them up by these. */
export const SYSTEM_WALLETS = [
  { kind: 'platform', code: 'platform' },
  { kind: 'external', code: 'wechat' },
  { kind: 'external', code: 'cash' },
  { kind: 'external', code: 'payout' },
] as const;

export async function ensureBaseData(db: Db): Promise<void> {
  await db.insert(permissions).values(defaultPermissionRows()).onConflictDoNothing();
  await db
    .insert(wallets)
    .values(SYSTEM_WALLETS.map((w) => ({ kind: w.kind, code: w.code })))
    .onConflictDoNothing();
}

/** Seeds the demo merchant into an empty database. Returns false when the database already had accounts. */
export async function seedDemo(db: Db): Promise<boolean> {
  const passwordHash = await hashPassword(DEMO_PASSWORD);
  return db.transaction(async (tx) => {
    // Two instances starting together on one PostgreSQL must not both seed.
    await tx.execute(sql`select pg_advisory_xact_lock(727001)`);
    const [existing] = await tx.select({ n: count() }).from(accounts);
    if ((existing?.n ?? 0) > 0) return false;
    const { mid, partnerId } = await seedDemoPeople(tx, passwordHash);
    const firstVenue = await seedDemoCatalogue(tx, mid);
    await seedDemoSharing(tx, mid, firstVenue.id, partnerId);
    return true;
  });
}

/** The four demo accounts, the demo merchant with its owner, in that order (the admin gets id 1). */
async function seedDemoPeople(tx: Tx, passwordHash: string): Promise<{ mid: number; partnerId: number }> {
  await tx
    .insert(accounts)
    .values({ ...DEMO_ACCOUNTS[0], password_hash: passwordHash, phone: '13800000001' });
  const [merchant] = await tx
    .insert(merchants)
    .values({
      name: '星河共享自助',
      contact_name: '陈星河',
      contact_phone: '13800000002',
      fee_rate_bp: 600,
    })
    .returning();
  const mid = merchant!.id;
  const staff = await tx
    .insert(accounts)
    .values(
      DEMO_ACCOUNTS.slice(1).map((a, i) => ({
        ...a,
        password_hash: passwordHash,
        merchant_id: mid,
        phone: `1380000000${i + 2}`,
      })),
    )
    .returning();
  const byName = new Map(staff.map((a) => [a.username, a]));
  const owner = byName.get('merchant')!;
  await tx.update(merchants).set({ owner_account_id: owner.id }).where(eq(merchants.id, mid));
  return { mid, partnerId: byName.get('partner')!.id };
}

const DEMO_TIERS = [
  { name: '30 分钟', minutes: 30, price_fen: 200, sort: 1 },
  { name: '60 分钟', minutes: 60, price_fen: 350, sort: 2 },
  { name: '120 分钟', minutes: 120, price_fen: 600, sort: 3 },
];

/**
 * Two device models, two venues with their prices, two packages and six devices of the demo merchant; returns the
 * first venue.
 */
async function seedDemoCatalogue(tx: Tx, mid: number): Promise<{ id: number }> {
  const [charger, chair] = await tx
    .insert(products)
    .values([
      { name: '智能充电桩', category: 'charger', description: '电动自行车智能充电桩，扫码即充' },
      { name: '共享按摩椅', category: 'massage', description: '商场共享按摩椅，扫码即用' },
    ])
    .returning();
  const [v1, v2] = await tx
    .insert(venues)
    .values([
      { merchant_id: mid, name: '星河广场店', address: '杭州市西湖区文三路 88 号星河广场 1 楼' },
      { merchant_id: mid, name: '滨江社区店', address: '杭州市滨江区江南大道 1024 号滨江花园南门' },
    ])
    .returning();
  await tx
    .insert(service_prices)
    .values([v1!, v2!].flatMap((v) => DEMO_TIERS.map((t) => ({ ...t, venue_id: v.id }))));
  await tx.insert(packages).values([
    { merchant_id: mid, name: '充 50 送 5', pay_fen: 5000, bonus_fen: 500, sort: 1 },
    { merchant_id: mid, name: '充 100 送 15', pay_fen: 10000, bonus_fen: 1500, sort: 2 },
  ]);
  // Ids 1..6 on a fresh database, in this order (the printed pay links and the e2e tests rely on it).
  const demoDevices = [
    { venue: v1!, product: charger!, name: '广场 1 号充电桩', serial: 'XH-CP-0001' },
    { venue: v1!, product: charger!, name: '广场 2 号充电桩', serial: 'XH-CP-0002' },
    { venue: v1!, product: chair!, name: '广场按摩椅 A', serial: 'XH-MC-0001' },
    { venue: v2!, product: charger!, name: '社区 1 号充电桩', serial: 'XH-CP-0003' },
    { venue: v2!, product: charger!, name: '社区 2 号充电桩', serial: 'XH-CP-0004' },
    { venue: v2!, product: chair!, name: '社区按摩椅 B', serial: 'XH-MC-0002' },
  ];
  for (const d of demoDevices) {
    await tx.insert(devices).values({
      merchant_id: mid,
      venue_id: d.venue.id,
      product_id: d.product.id,
      name: d.name,
      serial: d.serial,
    });
  }
  return v1!;
}

/** The partner's 20% share of venue 1 (with its history row), and the merchant's and partner's wallets. */
async function seedDemoSharing(tx: Tx, mid: number, venueId: number, partnerId: number): Promise<void> {
  const [rule] = await tx
    .insert(share_rules)
    .values({ merchant_id: mid, venue_id: venueId, partner_account_id: partnerId, ratio_bp: 2000 })
    .returning();
  await tx.insert(share_rule_changes).values({
    rule_id: rule!.id,
    merchant_id: mid,
    venue_id: venueId,
    partner_account_id: partnerId,
    action: 'create',
    ratio_bp: 2000,
  });
  await tx.insert(wallets).values([
    { kind: 'merchant', merchant_id: mid },
    { kind: 'partner', merchant_id: mid, account_id: partnerId },
  ]);
}

export interface DemoInfo {
  accounts: { username: string; level: number; name: string }[];
  devices: { id: number; name: string; venue_id: number; pay_link: string }[];
}

/** The demo accounts still present and the first devices' pay links, for the start-up banner. */
export async function demoInfo(db: Db, publicUrl: string, limit = 12): Promise<DemoInfo> {
  const accs = await db
    .select({ username: accounts.username, level: accounts.level, name: accounts.name })
    .from(accounts)
    .where(
      inArray(
        accounts.username,
        DEMO_ACCOUNTS.map((a) => a.username),
      ),
    )
    .orderBy(asc(accounts.level));
  const devs = await db
    .select({ id: devices.id, name: devices.name, venue_id: devices.venue_id })
    .from(devices)
    .orderBy(asc(devices.id))
    .limit(limit);
  return {
    accounts: accs,
    devices: devs.map((d) => ({
      ...d,
      pay_link: `${publicUrl}/user/pay?device_id=${d.id}&venue_id=${d.venue_id}`,
    })),
  };
}

export function formatBanner(info: DemoInfo, url: string): string {
  const lines = [`扫码即用 server on ${url}`];
  if (info.accounts.length) {
    lines.push(`Demo accounts (password ${DEMO_PASSWORD}):`);
    for (const a of info.accounts) lines.push(`  ${a.username.padEnd(10)} level ${a.level}  ${a.name}`);
  }
  if (info.devices.length) {
    lines.push('Pay links of the demo devices:');
    for (const d of info.devices) lines.push(`  #${d.id} ${d.name}: ${d.pay_link}`);
  }
  return lines.join('\n');
}
