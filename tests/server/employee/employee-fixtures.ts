/**
 * Fixtures of the employee's floor: the in-process app with the WeChat sandbox and the device simulator
 * (`createTestApp`), staff sign-in, a second merchant with its own employee, venue, price and device (for the
 * scoping tests), and a snapshot of everything money touches (for "nothing changed").
 */
import { count, eq } from 'drizzle-orm';
import { hashPassword } from '../../../server/auth/password';
import {
  accounts,
  audit_log,
  device_sessions,
  devices,
  ledger_entries,
  members,
  merchants,
  orders,
  service_prices,
  venues,
  wallets,
} from '../../../server/db/schema';
import { postJson, type TestWorld } from '../test-app';

export async function staffLogin(t: TestWorld, username: string, password = 'demo1234') {
  const { status, body } = await t.json<{ token: string }>(
    '/backend/auth/login',
    postJson({ username, password }),
  );
  if (status !== 200) throw new Error(`login ${username}: ${status}`);
  return body.token;
}

export const as = (token: string, init: RequestInit = {}): RequestInit => ({
  ...init,
  headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${token}` },
});

export const post = (body: unknown, key?: string): RequestInit =>
  postJson(body, key === undefined ? {} : { 'Idempotency-Key': key });

/** Merchant 2 with an employee `employee2`, a venue, a price and a device `OT-0001`. */
export async function otherMerchant(t: TestWorld) {
  const db = t.deps.db;
  const [m] = await db.insert(merchants).values({ name: '另一家商户' }).returning();
  await db.insert(accounts).values({
    username: 'employee2',
    name: '另一家员工',
    password_hash: await hashPassword('demo1234'),
    role: 'employee',
    level: 4,
    merchant_id: m!.id,
  });
  const [v] = await db.insert(venues).values({ merchant_id: m!.id, name: '另一家场地' }).returning();
  const [p] = await db
    .insert(service_prices)
    .values({ venue_id: v!.id, name: '30 分钟', minutes: 30, price_fen: 300 })
    .returning();
  const [d] = await db
    .insert(devices)
    .values({ merchant_id: m!.id, venue_id: v!.id, product_id: 1, name: '别家设备', serial: 'OT-0001' })
    .returning();
  return { merchant_id: m!.id, venue_id: v!.id, price_id: p!.id, device_id: d!.id };
}

export async function memberIdOf(t: TestWorld, openid: string) {
  const [m] = await t.deps.db
    .select({ id: members.id, code: members.code })
    .from(members)
    .where(eq(members.openid, openid));
  return m!;
}

/** Everything a refused request must leave as it was. */
export async function moneySnapshot(t: TestWorld) {
  const db = t.deps.db;
  const n = async (
    table: typeof orders | typeof ledger_entries | typeof audit_log | typeof device_sessions,
  ) => (await db.select({ n: count() }).from(table))[0]!.n;
  return {
    orders: await n(orders),
    entries: await n(ledger_entries),
    audits: await n(audit_log),
    sessions: await n(device_sessions),
    wallets: await db.select().from(wallets).orderBy(wallets.id),
  };
}

/** Heartbeats of every device at the app's (moved) clock, as the simulator's periodic beat would send. */
export async function beat(t: TestWorld) {
  const serials = (await t.deps.db.select({ s: devices.serial }).from(devices)).map((r) => r.s);
  await t.deps.devices!.handle({ type: 'heartbeat', serials, at: t.deps.now() });
}
