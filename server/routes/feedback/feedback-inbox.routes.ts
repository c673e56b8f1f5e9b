/**
 * `/backend/merchant/feedback`: the feedback inbox (docs/decisions.md D17). Members' feedback reaches the merchant
 * of the device (or of their latest order); that merchant, and the admin, read it and reply. The member reads the
 * reply on `/user/feedback`. The list answers the count still waiting for a reply (`open`), which 首页 shows.
 */
import { and, count, desc, eq, ilike, isNotNull, isNull, or, sql, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { Hono } from 'hono';
import {
  FeedbackInboxQuerySchema,
  FeedbackReplySchema,
  type FeedbackInboxPage,
  type InboxFeedback,
} from '../../../src/domain/feedback-inbox.schema';
import { assertOwnMerchant, merchantScope, requireStaff, staffOf } from '../../auth/staff.middleware';
import type { AppEnv, StaffAuth } from '../../context';
import type { Db, Tx } from '../../db/client';
import { devices, feedback, members } from '../../db/schema';
import { notFound } from '../../lib/errors';
import { offsetOf } from '../../lib/list';
import { likePattern } from '../../lib/search';
import { parseJson, parseParam, parseQuery } from '../../lib/validate';
import { writeAudit } from '../../services/audit';
import { accounts } from '../../db/schema';

const replier = alias(accounts, 'replier');

function inboxQuery(db: Db | Tx) {
  return db
    .select({
      f: feedback,
      nickname: members.nickname,
      device_name: devices.name,
      device_serial: devices.serial,
      replied_by: replier.name,
    })
    .from(feedback)
    .innerJoin(members, eq(members.id, feedback.member_id))
    .leftJoin(devices, eq(devices.id, feedback.device_id))
    .leftJoin(replier, eq(replier.id, feedback.replied_by));
}

type InboxRow = Awaited<ReturnType<typeof inboxQuery>>[number];

/** The answer shape (fixed: fields may be added, never renamed). */
export function toInboxFeedback(r: InboxRow): InboxFeedback {
  const f = r.f;
  return {
    id: f.id,
    category: f.category,
    content: f.content,
    merchant_id: f.merchant_id,
    member: { id: f.member_id, nickname: r.nickname },
    device:
      f.device_id === null
        ? null
        : { id: f.device_id, name: r.device_name ?? '', serial: r.device_serial ?? '' },
    reply: f.reply,
    replied_at: f.replied_at?.toISOString() ?? null,
    replied_by: r.replied_by,
    created_at: f.created_at.toISOString(),
  };
}

async function findFeedback(db: Db | Tx, staff: StaffAuth, id: number): Promise<InboxFeedback> {
  const [row] = await inboxQuery(db).where(eq(feedback.id, id));
  if (!row) throw notFound('反馈不存在');
  // Feedback with no merchant (a member with no order yet) is the platform's: only the admin sees it.
  assertOwnMerchant(staff, row.f.merchant_id, '反馈');
  return toInboxFeedback(row);
}

/** Feedback still waiting for a reply, in the staff's scope (the 首页 tile's count). */
export async function openFeedbackCount(db: Db, staff: StaffAuth): Promise<number> {
  const scope = merchantScope(staff);
  const [row] = await db
    .select({ n: count() })
    .from(feedback)
    .where(and(isNull(feedback.reply), scope === null ? undefined : eq(feedback.merchant_id, scope)));
  return row?.n ?? 0;
}

export function feedbackInboxRoutes() {
  const r = new Hono<AppEnv>();
  r.use('*', requireStaff('merchant.feedback'));

  r.get('/', async (c) => {
    const { db } = c.var.deps;
    const staff = staffOf(c);
    const q = parseQuery(c, FeedbackInboxQuerySchema);
    const scope = merchantScope(staff) ?? q.merchant_id;
    const inScope = scope === undefined ? undefined : eq(feedback.merchant_id, scope);
    const where: (SQL | undefined)[] = [
      inScope,
      q.state === 'open'
        ? isNull(feedback.reply)
        : q.state === 'replied'
          ? isNotNull(feedback.reply)
          : undefined,
      q.q
        ? or(ilike(feedback.content, likePattern(q.q)), ilike(members.nickname, likePattern(q.q)))
        : undefined,
    ];
    const [rows, [total], [open]] = await Promise.all([
      inboxQuery(db)
        .where(and(...where))
        .orderBy(sql`${feedback.reply} is not null`, desc(feedback.created_at), desc(feedback.id))
        .limit(q.page_size)
        .offset(offsetOf(q)),
      db
        .select({ n: count() })
        .from(feedback)
        .innerJoin(members, eq(members.id, feedback.member_id))
        .where(and(...where)),
      db
        .select({ n: count() })
        .from(feedback)
        .where(and(inScope, isNull(feedback.reply))),
    ]);
    const body: FeedbackInboxPage = {
      items: rows.map(toInboxFeedback),
      total: total?.n ?? 0,
      page: q.page,
      page_size: q.page_size,
      open: open?.n ?? 0,
    };
    return c.json(body);
  });

  r.get('/:id', async (c) => c.json(await findFeedback(c.var.deps.db, staffOf(c), parseParam(c, 'id'))));

  r.post('/:id/reply', async (c) => {
    const staff = staffOf(c);
    const { now } = c.var.deps;
    const id = parseParam(c, 'id');
    const input = await parseJson(c, FeedbackReplySchema);
    const updated = await c.var.deps.db.transaction(async (tx) => {
      const before = await findFeedback(tx, staff, id);
      await tx
        .update(feedback)
        .set({ reply: input.reply, replied_by: staff.account_id, replied_at: now() })
        .where(eq(feedback.id, id));
      const after = await findFeedback(tx, staff, id);
      await writeAudit(tx, staff, {
        action: 'feedback.reply',
        entity: 'feedback',
        entity_id: id,
        merchant_id: before.merchant_id,
        before: { reply: before.reply },
        after: { reply: after.reply },
      });
      return after;
    });
    return c.json(updated);
  });

  return r;
}
