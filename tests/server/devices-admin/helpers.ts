/** A second merchant with its owner account and one venue, for scoping tests against the demo merchant. */
import { count } from 'drizzle-orm';
import { hashPassword } from '../../../server/auth/password';
import type { Db } from '../../../server/db/client';
import { accounts, audit_log, devices, merchants, venues } from '../../../server/db/schema';
import { bearer, postJson } from '../test-app';

export async function createOtherMerchant(db: Db, username = 'owner-b') {
  const [m] = await db
    .insert(merchants)
    .values({ name: '乙方自助', contact_name: '乙', contact_phone: '13900000000', fee_rate_bp: 600 })
    .returning();
  await db.insert(accounts).values({
    username,
    name: '乙方老板',
    password_hash: await hashPassword('demo1234'),
    role: 'merchant',
    level: 2,
    merchant_id: m!.id,
  });
  const [v] = await db
    .insert(venues)
    .values({ merchant_id: m!.id, name: '乙方一店', address: '' })
    .returning();
  return { merchant_id: m!.id, venue_id: v!.id, username };
}

export const as = (token: string, init: RequestInit = {}): RequestInit => ({
  ...init,
  headers: {
    ...(init.headers as Record<string, string>),
    ...(bearer(token).headers as Record<string, string>),
  },
});
export const send = (method: string, body: unknown): RequestInit => ({ ...postJson(body), method });

/** Everything a device write could change: the rows and the audit log's size. */
export async function snapshot(db: Db) {
  return {
    rows: await db.select().from(devices).orderBy(devices.id),
    audits: (await db.select({ n: count() }).from(audit_log))[0]!.n,
  };
}
