/**
 * Fixtures for the catalogue suites (venues, prices, packages): a second merchant with its owner account, with
 * signed-in tokens, so merchant A can be tried against merchant B's ids.
 */
import { eq } from 'drizzle-orm';
import { hashPassword } from '../../../server/auth/password';
import { accounts, merchants, packages, service_prices, venues } from '../../../server/db/schema';
import type { TestApp } from '../test-app';

export interface OtherMerchant {
  merchant_id: number;
  token: string;
  venue_id: number;
  price_id: number;
  package_id: number;
}

/** Merchant B with an owner `username`, one venue with one price, and one package. */
export async function addOtherMerchant(t: TestApp, username = 'merchant-b'): Promise<OtherMerchant> {
  const db = t.deps.db;
  const [m] = await db
    .insert(merchants)
    .values({ name: `${username} 商户` })
    .returning();
  const [owner] = await db
    .insert(accounts)
    .values({
      username,
      name: `${username} 老板`,
      password_hash: await hashPassword('demo1234'),
      role: 'merchant',
      level: 2,
      merchant_id: m!.id,
    })
    .returning();
  await db.update(merchants).set({ owner_account_id: owner!.id }).where(eq(merchants.id, m!.id));
  const [v] = await db
    .insert(venues)
    .values({ merchant_id: m!.id, name: 'B 场地', address: 'B 路 1 号' })
    .returning();
  const [p] = await db
    .insert(service_prices)
    .values({ venue_id: v!.id, name: 'B 30 分钟', minutes: 30, price_fen: 300, sort: 1 })
    .returning();
  const [k] = await db
    .insert(packages)
    .values({ merchant_id: m!.id, name: 'B 充 20', pay_fen: 2000, bonus_fen: 100, sort: 1 })
    .returning();
  return {
    merchant_id: m!.id,
    token: await t.login(username),
    venue_id: v!.id,
    price_id: p!.id,
    package_id: k!.id,
  };
}

/** Request init with the bearer token (and any other headers of `init`). */
export const as = (token: string, init: RequestInit = {}): RequestInit => ({
  ...init,
  headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${token}` },
});

/** A JSON body with the given method. */
export const send = (method: string, body: unknown): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json' },
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

/** Headers a client might forge to claim another level or merchant (the server must ignore them). */
export const forged = (merchantId: number): Record<string, string> => ({
  'X-UserLevel': '1',
  'X-MerchantID': String(merchantId),
});
