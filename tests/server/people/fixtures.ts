/**
 * A second merchant for the sub-users, profit-sharing, members and feedback tests: its owner (`other`, password
 * demo1234), a partner, a venue, a device, a member with a funded wallet and a feedback, so every test can ask for
 * the other merchant's ids and expect 404.
 */
import { eq } from 'drizzle-orm';
import { hashPassword } from '../../../server/auth/password';
import type { Db } from '../../../server/db/client';
import {
  accounts,
  devices,
  feedback,
  merchants,
  products,
  share_rules,
  venues,
} from '../../../server/db/schema';
import { createMember, fundMember } from '../device-sessions/devices-fixtures';
import { bearer, postJson } from '../test-app';

export interface OtherMerchant {
  merchant_id: number;
  owner_id: number;
  partner_id: number;
  employee_id: number;
  venue_id: number;
  device_id: number;
  member_id: number;
  rule_id: number;
  feedback_id: number;
}

let n = 0;
export async function createOtherMerchant(db: Db, username = 'other'): Promise<OtherMerchant> {
  const hash = await hashPassword('demo1234');
  const tag = `${username}-${++n}`;
  const [m] = await db
    .insert(merchants)
    .values({ name: `另一家商户 ${tag}` })
    .returning();
  const mk = async (u: string, role: 'merchant' | 'partner' | 'employee', level: number) =>
    (
      await db
        .insert(accounts)
        .values({ username: u, name: `${role} ${tag}`, role, level, merchant_id: m!.id, password_hash: hash })
        .returning({ id: accounts.id })
    )[0]!.id;
  const owner_id = await mk(username, 'merchant', 2);
  const partner_id = await mk(`${username}-partner`, 'partner', 3);
  const employee_id = await mk(`${username}-employee`, 'employee', 4);
  await db.update(merchants).set({ owner_account_id: owner_id }).where(eq(merchants.id, m!.id));
  const [v] = await db
    .insert(venues)
    .values({ merchant_id: m!.id, name: `别家场地 ${tag}` })
    .returning();
  const [p] = await db.select().from(products).limit(1);
  const [d] = await db
    .insert(devices)
    .values({ merchant_id: m!.id, venue_id: v!.id, product_id: p!.id, name: '别家设备', serial: `OT-${tag}` })
    .returning();
  const member_id = await createMember(db);
  await fundMember(db, member_id, m!.id, 1000);
  const [rule] = await db
    .insert(share_rules)
    .values({ merchant_id: m!.id, venue_id: v!.id, partner_account_id: partner_id, ratio_bp: 1000 })
    .returning();
  const [f] = await db
    .insert(feedback)
    .values({ member_id, merchant_id: m!.id, device_id: d!.id, category: 'device', content: '别家设备坏了' })
    .returning();
  return {
    merchant_id: m!.id,
    owner_id,
    partner_id,
    employee_id,
    venue_id: v!.id,
    device_id: d!.id,
    member_id,
    rule_id: rule!.id,
    feedback_id: f!.id,
  };
}

/** A request as `token`, with an optional method and JSON body and extra headers. */
export function as(token: string, method = 'GET', body?: unknown, headers: Record<string, string> = {}) {
  const auth = bearer(token, headers).headers as Record<string, string>;
  if (body === undefined) return { method, headers: auth };
  const init = postJson(body, auth);
  return { ...init, method };
}

/** The forged display headers a client might send: never read by the server. */
export const FORGED = { 'X-UserLevel': '1', 'X-MerchantID': '999' };
