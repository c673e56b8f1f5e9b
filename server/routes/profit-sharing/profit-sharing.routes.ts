/**
 * `/backend/profit-sharing`: rules of venue x partner x ratio (docs/decisions.md D17). A venue's ratios never sum
 * above 100%: every write locks the venue row before it sums, so concurrent writes to one venue queue. The split
 * at payment reads the rules in force, so a change applies to payments from then on; every change is appended to
 * `share_rule_changes` (the history) and the audit log in its transaction. `?mine=1` lists the signed-in
 * partner's own rules (the wallet screen shows them).
 */
import { and, asc, count, desc, eq, sql, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { Hono } from 'hono';
import {
  FULL_BP,
  ShareRuleHistoryQuerySchema,
  ShareRuleInputSchema,
  ShareRuleListQuerySchema,
  ShareRuleUpdateSchema,
  formatBp,
  type ShareRule,
  type ShareRuleChange,
} from '../../../src/domain/profit-sharing.schema';
import { assertOwnMerchant, merchantScope, requireStaff, staffOf } from '../../auth/staff.middleware';
import type { AppEnv, StaffAuth } from '../../context';
import type { Db, Tx } from '../../db/client';
import { accounts, share_rule_changes, share_rules, venues } from '../../db/schema';
import { conflict, forbidden, notFound, validationFailed } from '../../lib/errors';
import { offsetOf, pageOf } from '../../lib/list';
import { parseJson, parseParam, parseQuery } from '../../lib/validate';
import { writeAudit } from '../../services/audit';

const FEATURE = 'subUsers.profitSharing';

const venueTotal =
  sql<number>`(select coalesce(sum(s2.ratio_bp), 0) from "share_rules" s2 where s2.venue_id = "share_rules"."venue_id")`.mapWith(
    Number,
  );
/** When the current ratio took effect: the rule's latest change. */
const validFrom = sql<string>`(select max(h.created_at) from "share_rule_changes" h where h.rule_id = "share_rules"."id")`;

const ruleColumns = {
  id: share_rules.id,
  venue_id: share_rules.venue_id,
  venue_name: venues.name,
  partner_account_id: share_rules.partner_account_id,
  partner_name: accounts.name,
  partner_username: accounts.username,
  ratio_bp: share_rules.ratio_bp,
  merchant_id: share_rules.merchant_id,
  venue_total_bp: venueTotal,
  valid_from: validFrom,
  created_at: share_rules.created_at,
};

function ruleQuery(db: Db | Tx) {
  return db
    .select(ruleColumns)
    .from(share_rules)
    .innerJoin(venues, eq(venues.id, share_rules.venue_id))
    .innerJoin(accounts, eq(accounts.id, share_rules.partner_account_id));
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
    ratio_bp: r.ratio_bp,
    merchant_id: r.merchant_id,
    venue_total_bp: r.venue_total_bp,
    valid_from: from.toISOString(),
  };
}

async function findRule(db: Db | Tx, staff: StaffAuth, id: number): Promise<ShareRule> {
  const [row] = await ruleQuery(db).where(eq(share_rules.id, id));
  if (!row) throw notFound('分润规则不存在');
  assertOwnMerchant(staff, row.merchant_id, '分润规则');
  return toShareRule(row);
}

/** Locks the venue row (writes to one venue's rules queue here) and answers its merchant; another's is 404. */
async function lockVenue(tx: Tx, staff: StaffAuth, venueId: number): Promise<number> {
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
async function assertWithinFull(tx: Tx, venueId: number, ratioBp: number, exceptRuleId?: number) {
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

async function recordChange(
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

const changer = alias(accounts, 'changer');
const partner = alias(accounts, 'partner');

export function profitSharingRoutes() {
  const r = new Hono<AppEnv>();

  r.get('/', requireStaff(), async (c) => {
    const { db } = c.var.deps;
    const staff = staffOf(c);
    const q = parseQuery(c, ShareRuleListQuerySchema);
    if (!q.mine && staff.level !== 1 && !staff.features.has(FEATURE)) throw forbidden('没有权限访问此功能');
    const scope = q.mine ? undefined : (merchantScope(staff) ?? q.merchant_id);
    const where: (SQL | undefined)[] = [
      q.mine ? eq(share_rules.partner_account_id, staff.account_id) : undefined,
      scope === undefined ? undefined : eq(share_rules.merchant_id, scope),
      q.venue_id ? eq(share_rules.venue_id, q.venue_id) : undefined,
      q.partner_account_id ? eq(share_rules.partner_account_id, q.partner_account_id) : undefined,
    ];
    const [rows, [total]] = await Promise.all([
      ruleQuery(db)
        .where(and(...where))
        .orderBy(asc(share_rules.venue_id), asc(share_rules.partner_account_id))
        .limit(q.page_size)
        .offset(offsetOf(q)),
      db
        .select({ n: count() })
        .from(share_rules)
        .where(and(...where)),
    ]);
    return c.json(pageOf(rows.map(toShareRule), total?.n ?? 0, q));
  });

  r.get('/history', requireStaff(FEATURE), async (c) => {
    const { db } = c.var.deps;
    const staff = staffOf(c);
    const q = parseQuery(c, ShareRuleHistoryQuerySchema);
    const scope = merchantScope(staff) ?? q.merchant_id;
    const where = and(
      scope === undefined ? undefined : eq(share_rule_changes.merchant_id, scope),
      q.venue_id ? eq(share_rule_changes.venue_id, q.venue_id) : undefined,
      q.partner_account_id ? eq(share_rule_changes.partner_account_id, q.partner_account_id) : undefined,
    );
    const [rows, [total]] = await Promise.all([
      db
        .select({
          h: share_rule_changes,
          venue_name: venues.name,
          partner_name: partner.name,
          by: changer.name,
        })
        .from(share_rule_changes)
        .innerJoin(venues, eq(venues.id, share_rule_changes.venue_id))
        .innerJoin(partner, eq(partner.id, share_rule_changes.partner_account_id))
        .leftJoin(changer, eq(changer.id, share_rule_changes.account_id))
        .where(where)
        .orderBy(desc(share_rule_changes.created_at), desc(share_rule_changes.id))
        .limit(q.page_size)
        .offset(offsetOf(q)),
      db.select({ n: count() }).from(share_rule_changes).where(where),
    ]);
    const items: ShareRuleChange[] = rows.map(({ h, venue_name, partner_name, by }) => ({
      id: h.id,
      rule_id: h.rule_id,
      venue_id: h.venue_id,
      venue_name,
      partner_account_id: h.partner_account_id,
      partner_name,
      action: h.action,
      ratio_bp: h.ratio_bp,
      previous_bp: h.previous_bp,
      by,
      created_at: h.created_at.toISOString(),
    }));
    return c.json(pageOf(items, total?.n ?? 0, q));
  });

  r.get('/:id', requireStaff(FEATURE), async (c) =>
    c.json(await findRule(c.var.deps.db, staffOf(c), parseParam(c, 'id'))),
  );

  r.post('/', requireStaff(FEATURE), async (c) => {
    const staff = staffOf(c);
    const input = await parseJson(c, ShareRuleInputSchema);
    const created = await c.var.deps.db.transaction(async (tx) => {
      const merchant_id = await lockVenue(tx, staff, input.venue_id);
      const [p] = await tx
        .select({ level: accounts.level, merchant_id: accounts.merchant_id, status: accounts.status })
        .from(accounts)
        .where(eq(accounts.id, input.partner_account_id));
      if (!p || p.level !== 3 || p.merchant_id !== merchant_id) throw notFound('合伙人不存在');
      if (p.status !== 'active') throw validationFailed({ partner_account_id: '该合伙人已停用' });
      const [existing] = await tx
        .select({ id: share_rules.id })
        .from(share_rules)
        .where(
          and(
            eq(share_rules.venue_id, input.venue_id),
            eq(share_rules.partner_account_id, input.partner_account_id),
          ),
        );
      if (existing) {
        throw conflict('SHARE_RULE_EXISTS', '该合伙人在此场地已有分润规则，请直接修改比例', {
          id: existing.id,
        });
      }
      await assertWithinFull(tx, input.venue_id, input.ratio_bp);
      const [row] = await tx
        .insert(share_rules)
        .values({ ...input, merchant_id })
        .returning({ id: share_rules.id });
      await recordChange(tx, staff, { ...input, id: row!.id, merchant_id }, 'create', input.ratio_bp, null);
      const after = await findRule(tx, staff, row!.id);
      await writeAudit(tx, staff, {
        action: 'profit_sharing.create',
        entity: 'share_rules',
        entity_id: row!.id,
        merchant_id,
        after,
      });
      return after;
    });
    return c.json(created, 201);
  });

  r.put('/:id', requireStaff(FEATURE), async (c) => {
    const staff = staffOf(c);
    const id = parseParam(c, 'id');
    const input = await parseJson(c, ShareRuleUpdateSchema);
    const updated = await c.var.deps.db.transaction(async (tx) => {
      const seen = await findRule(tx, staff, id);
      await lockVenue(tx, staff, seen.venue_id);
      const before = await findRule(tx, staff, id);
      if (before.ratio_bp === input.ratio_bp) return before;
      await assertWithinFull(tx, before.venue_id, input.ratio_bp, id);
      await tx.update(share_rules).set({ ratio_bp: input.ratio_bp }).where(eq(share_rules.id, id));
      await recordChange(tx, staff, before, 'update', input.ratio_bp, before.ratio_bp);
      const after = await findRule(tx, staff, id);
      await writeAudit(tx, staff, {
        action: 'profit_sharing.update',
        entity: 'share_rules',
        entity_id: id,
        merchant_id: before.merchant_id,
        before,
        after,
      });
      return after;
    });
    return c.json(updated);
  });

  r.delete('/:id', requireStaff(FEATURE), async (c) => {
    const staff = staffOf(c);
    const id = parseParam(c, 'id');
    await c.var.deps.db.transaction(async (tx) => {
      const seen = await findRule(tx, staff, id);
      await lockVenue(tx, staff, seen.venue_id);
      const before = await findRule(tx, staff, id);
      await tx.delete(share_rules).where(eq(share_rules.id, id));
      await recordChange(tx, staff, before, 'delete', null, before.ratio_bp);
      await writeAudit(tx, staff, {
        action: 'profit_sharing.delete',
        entity: 'share_rules',
        entity_id: id,
        merchant_id: before.merchant_id,
        before,
      });
    });
    return c.body(null, 204);
  });

  return r;
}
