/**
 * `/backend/profit-sharing`: rules of venue x partner x ratio (docs/decisions.md D17). A venue's ratios never sum
 * above 100%: every write locks the venue row before it sums, so concurrent writes to one venue queue. The split
 * at payment reads the rules in force, so a change applies to payments from then on; every change is appended to
 * `share_rule_changes` (the history) and the audit log in its transaction. `?mine=1` lists the signed-in
 * partner's own rules (the wallet screen shows them).
 */
import { and, asc, count, desc, eq, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { Hono } from 'hono';
import {
  ShareRuleHistoryQuerySchema,
  ShareRuleInputSchema,
  ShareRuleListQuerySchema,
  ShareRuleUpdateSchema,
  type ShareRuleChange,
} from '../../../src/domain/profit-sharing.schema';
import { merchantScope, requireStaff, staffOf } from '../../auth/staff.middleware';
import type { AppEnv } from '../../context';
import { accounts, share_rule_changes, share_rules, venues } from '../../db/schema';
import { conflict, forbidden, notFound, validationFailed } from '../../lib/errors';
import { offsetOf, pageOf } from '../../lib/list';
import { parseJson, parseParam, parseQuery } from '../../lib/validate';
import { writeAudit } from '../../services/audit';
import {
  FEATURE,
  ruleQuery,
  toShareRule,
  findRule,
  lockVenue,
  assertWithinFull,
  recordChange,
} from './share-rules';

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
