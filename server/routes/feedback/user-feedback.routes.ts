/**
 * Member feedback (docs/decisions.md D6): `POST /backend/user/feedback` files one (category, text, optional device) for the
 * merchant of that device, or of the member's latest order when no device is named; `GET` lists the member's own
 * feedback, newest first, with the merchant's reply when there is one. Mounted at `/backend/user/feedback`.
 */
import { and, count, desc, eq, gt } from 'drizzle-orm';
import { Hono } from 'hono';
import { FeedbackRequestSchema, type FeedbackItem } from '../../../src/domain/api';
import type { AppEnv } from '../../context';
import { devices, feedback, orders } from '../../db/schema';
import { notFound, tooManyRequests } from '../../lib/errors';
import { parseJson } from '../../lib/validate';
import { offsetOf, pageOf, pageQuery } from '../../lib/list';
import { memberOf, requireMember } from '../../member/member.middleware';

/** Feedback a member may file per 24 hours. */
export const DAILY_LIMIT = 20;
const DAY_MS = 24 * 3600_000;

const itemColumns = {
  id: feedback.id,
  category: feedback.category,
  content: feedback.content,
  device_id: feedback.device_id,
  device_name: devices.name,
  reply: feedback.reply,
  replied_at: feedback.replied_at,
  created_at: feedback.created_at,
};

type ItemRow = {
  id: number;
  category: FeedbackItem['category'];
  content: string;
  device_id: number | null;
  device_name: string | null;
  reply: string | null;
  replied_at: Date | null;
  created_at: Date;
};

const toItem = (r: ItemRow): FeedbackItem => ({
  ...r,
  replied_at: r.replied_at?.toISOString() ?? null,
  created_at: r.created_at.toISOString(),
});

export function feedbackRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use('*', requireMember());

  app.get('/', async (c) => {
    const member_id = memberOf(c);
    const q = pageQuery(c);
    const { db } = c.var.deps;
    const [total] = await db.select({ n: count() }).from(feedback).where(eq(feedback.member_id, member_id));
    const rows = await db
      .select(itemColumns)
      .from(feedback)
      .leftJoin(devices, eq(devices.id, feedback.device_id))
      .where(eq(feedback.member_id, member_id))
      .orderBy(desc(feedback.created_at), desc(feedback.id))
      .limit(q.page_size)
      .offset(offsetOf(q));
    return c.json(pageOf(rows.map(toItem), total?.n ?? 0, q));
  });

  app.post('/', async (c) => {
    const member_id = memberOf(c);
    const input = await parseJson(c, FeedbackRequestSchema);
    const { db, now } = c.var.deps;
    // A member files a handful a day; more is a script, and the merchant's inbox is not a dumping ground.
    const [recent] = await db
      .select({ n: count() })
      .from(feedback)
      .where(
        and(eq(feedback.member_id, member_id), gt(feedback.created_at, new Date(now().getTime() - DAY_MS))),
      );
    if ((recent?.n ?? 0) >= DAILY_LIMIT) throw tooManyRequests('今天的反馈已达上限，请明天再试', 3600);
    let merchant_id: number | null;
    let device_name: string | null = null;
    if (input.device_id !== undefined) {
      const [d] = await db
        .select({ merchant_id: devices.merchant_id, name: devices.name })
        .from(devices)
        .where(eq(devices.id, input.device_id));
      if (!d) throw notFound('设备不存在');
      merchant_id = d.merchant_id;
      device_name = d.name;
    } else {
      const [latest] = await db
        .select({ merchant_id: orders.merchant_id })
        .from(orders)
        .where(eq(orders.member_id, member_id))
        .orderBy(desc(orders.created_at), desc(orders.id))
        .limit(1);
      merchant_id = latest?.merchant_id ?? null;
    }
    const [row] = await db
      .insert(feedback)
      .values({
        member_id,
        merchant_id,
        device_id: input.device_id ?? null,
        category: input.category,
        content: input.content,
        created_at: now(),
      })
      .returning();
    return c.json(toItem({ ...row!, device_name }), 201);
  });

  return app;
}
