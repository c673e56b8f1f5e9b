/** The rules' queries and checks behind `/backend/profit-sharing`: the answer shape, the venue lock, the 100% rule and the history row. */
import { and, eq, sql } from 'drizzle-orm';
import { FULL_BP, formatBp, type ShareRule } from '../../../src/domain/profit-sharing.schema';
import { assertOwnMerchant } from '../../auth/staff.middleware';
import type { StaffAuth } from '../../context';
import type { Db, Tx } from '../../db/client';
import { accounts, merchants, share_rule_changes, share_rules, venues } from '../../db/schema';
import { conflict, notFound } from '../../lib/errors';

export const FEATURE = 'subUsers.profitSharing';

export const venueTotal =
  sql<number>`(select coalesce(sum(s2.ratio_bp), 0) from "share_rules" s2 where s2.venue_id = "share_rules"."venue_id")`.mapWith(
    Number,
  );
/** When the current ratio took effect: the rule's latest change. */
export const validFrom = sql<string>`(select max(h.created_at) from "share_rule_changes" h where h.rule_id = "share_rules"."id")`;

export const ruleColumns = {
  id: share_rules.id,
  venue_id: share_rules.venue_id,
  venue_name: venues.name,
  partner_account_id: share_rules.partner_account_id,
  partner_name: accounts.name,
  partner_username: accounts.username,
  partner_status: accounts.status,
  ratio_bp: share_rules.ratio_bp,
  merchant_id: share_rules.merchant_id,
  merchant_name: merchants.name,
  venue_total_bp: venueTotal,
  valid_from: validFrom,
  created_at: share_rules.created_at,
};

export function ruleQuery(db: Db | Tx) {
  return db
    .select(ruleColumns)
    .from(share_rules)
    .innerJoin(venues, eq(venues.id, share_rules.venue_id))
    .innerJoin(accounts, eq(accounts.id, share_rules.partner_account_id))
    .innerJoin(merchants, eq(merchants.id, share_rules.merchant_id));
}

type RuleRow = Awaited<ReturnType<typeof ruleQuery>>[number];

/** The answer shape (fixed: fields may be added, never renamed). */
export function toShareRule(r: RuleRow): ShareRule {
  const from = r.valid_from ? new Date(r.valid_from) : r.created_at;
  return {
    id: r.id,
    venue_id: r.venue_id,
    venue_name: r.venue_name,
    partner_account_id: r.partner_account_id,
    partner_name: r.partner_name,
    partner_username: r.partner_username,
    partner_status: r.partner_status,
    ratio_bp: r.ratio_bp,
    merchant_id: r.merchant_id,
    merchant_name: r.merchant_name,
    venue_total_bp: r.venue_total_bp,
    valid_from: from.toISOString(),
  };
}

export async function findRule(db: Db | Tx, staff: StaffAuth, id: number): Promise<ShareRule> {
  const [row] = await ruleQuery(db).where(eq(share_rules.id, id));
  if (!row) throw notFound('分润规则不存在');
  assertOwnMerchant(staff, row.merchant_id, '分润规则');
  return toShareRule(row);
}

/** Locks the venue row (writes to one venue's rules queue here) and answers its merchant; another's is 404. */
export async function lockVenue(tx: Tx, staff: StaffAuth, venueId: number): Promise<number> {
  const [v] = await tx
    .select({ merchant_id: venues.merchant_id })
    .from(venues)
    .where(eq(venues.id, venueId))
    .for('update');
  if (!v) throw notFound('场地不存在');
  assertOwnMerchant(staff, v.merchant_id, '场地');
  return v.merchant_id;
}

/** Refuses a ratio that would take the venue's sum above 100% (the venue row is locked by the caller). */
export async function assertWithinFull(tx: Tx, venueId: number, ratioBp: number, exceptRuleId?: number) {
  const [row] = await tx
    .select({ sum: sql<number>`coalesce(sum(${share_rules.ratio_bp}), 0)`.mapWith(Number) })
    .from(share_rules)
    .where(
      and(
        eq(share_rules.venue_id, venueId),
        exceptRuleId === undefined ? undefined : sql`${share_rules.id} <> ${exceptRuleId}`,
      ),
    );
  const others = row?.sum ?? 0;
  if (others + ratioBp > FULL_BP) {
    const left = FULL_BP - others;
    throw conflict(
      'SHARE_OVER_100',
      `该场地已分出 ${formatBp(others)}，最多还能分 ${formatBp(left)}；各合伙人比例合计不能超过 100%`,
      { allocated_bp: others, available_bp: left },
    );
  }
}

export async function recordChange(
  tx: Tx,
  staff: StaffAuth,
  rule: Pick<ShareRule, 'id' | 'merchant_id' | 'venue_id' | 'partner_account_id'>,
  action: 'create' | 'update' | 'delete',
  ratio_bp: number | null,
  previous_bp: number | null,
) {
  await tx.insert(share_rule_changes).values({
    rule_id: rule.id,
    merchant_id: rule.merchant_id,
    venue_id: rule.venue_id,
    partner_account_id: rule.partner_account_id,
    action,
    ratio_bp,
    previous_bp,
    account_id: staff.account_id,
  });
}
