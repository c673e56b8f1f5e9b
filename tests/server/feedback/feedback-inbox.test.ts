/**
 * `/backend/merchant/feedback` against the real app and database: the merchant of the device reads its members'
 * feedback and replies; the member sees the reply on `/backend/user/feedback`; the count still waiting shows on
 * `/backend/dashboard`; the other merchant's feedback answers 404; partners and employees 403; bad input changes
 * nothing.
 */
import { count } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FeedbackItem, Page } from '../../../src/domain/api';
import type { DashboardSummary } from '../../../src/domain/dashboard';
import type { FeedbackInboxPage, InboxFeedback } from '../../../src/domain/feedback-inbox.schema';
import { audit_log, feedback } from '../../../server/db/schema';
import { createTestApp, postJson, signInMember, type TestWorld, withCookie, WORLD } from '../test-app';
import { as, createOtherMerchant, FORGED, type OtherMerchant } from '../people/fixtures';

let t: TestWorld;
let merchant: string;
let admin: string;
let carol: string;
let other: OtherMerchant;
const login = async (username: string) => {
  const r = await t.json<{ token: string }>(
    '/backend/auth/login',
    postJson({ username, password: 'demo1234' }),
  );
  return r.body.token;
};
beforeAll(async () => {
  t = await createTestApp(WORLD);
  other = await createOtherMerchant(t.deps.db);
  merchant = await login('merchant');
  admin = await login('admin');
  carol = await signInMember(t, 'inbox-carol');
});
afterAll(async () => t?.close());

const snapshot = async () => ({
  rows: await t.deps.db.select().from(feedback).orderBy(feedback.id),
  audits: (await t.deps.db.select({ n: count() }).from(audit_log))[0]!.n,
});

describe('feedback inbox', () => {
  it('the merchant reads feedback about its device, replies, and the member sees the reply', async () => {
    const filed = await t.json<FeedbackItem>(
      '/backend/user/feedback',
      withCookie(carol, postJson({ category: 'device', content: '按摩椅不启动，扣了钱', device_id: 3 })),
    );
    expect(filed.status).toBe(201);
    const dash = await t.json<DashboardSummary>('/backend/dashboard', as(merchant));
    expect(dash.body.feedback_open).toBe(1);
    const inbox = await t.json<FeedbackInboxPage>(
      '/backend/merchant/feedback',
      as(merchant, 'GET', undefined, FORGED),
    );
    expect(inbox.status).toBe(200);
    expect(inbox.body.open).toBe(1);
    expect(inbox.body.items).toHaveLength(1);
    expect(inbox.body.items[0]).toMatchObject({
      id: filed.body.id,
      content: '按摩椅不启动，扣了钱',
      device: { id: 3, name: '广场按摩椅 A' },
      reply: null,
      member: { nickname: expect.any(String) },
    });
    const reply = await t.json<InboxFeedback>(
      `/backend/merchant/feedback/${filed.body.id}/reply`,
      as(merchant, 'POST', { reply: '  已退款并安排检修，抱歉  ' }),
    );
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ reply: '已退款并安排检修，抱歉', replied_by: '星河共享 · 陈老板' });
    const mine = await t.json<Page<FeedbackItem>>('/backend/user/feedback', withCookie(carol));
    expect(mine.body.items[0]).toMatchObject({ reply: '已退款并安排检修，抱歉' });
    expect(mine.body.items[0]!.replied_at).toMatch(/Z$/);
    expect((await t.json<DashboardSummary>('/backend/dashboard', as(merchant))).body.feedback_open).toBe(0);
    const replied = await t.json<FeedbackInboxPage>('/backend/merchant/feedback?state=replied', as(merchant));
    expect(replied.body.items.map((f) => f.id)).toEqual([filed.body.id]);
    const searched = await t.json<FeedbackInboxPage>(
      `/backend/merchant/feedback?q=${encodeURIComponent('按摩椅')}`,
      as(merchant),
    );
    expect(searched.body.total).toBe(1);
    const all = await t.json<FeedbackInboxPage>('/backend/merchant/feedback', as(admin));
    expect(all.body.total).toBe(2);
    expect(all.body.open).toBe(1);
  });

  it("the other merchant's feedback answers 404; partners and employees 403; no token 401", async () => {
    const before = await snapshot();
    const id = other.feedback_id;
    expect(
      (await t.request(`/backend/merchant/feedback/${id}`, as(merchant, 'GET', undefined, FORGED))).status,
    ).toBe(404);
    const r = await t.request(
      `/backend/merchant/feedback/${id}/reply`,
      as(merchant, 'POST', { reply: '越权回复' }, FORGED),
    );
    expect(r.status).toBe(404);
    for (const u of ['partner', 'employee']) {
      const tok = await login(u);
      expect((await t.request('/backend/merchant/feedback', as(tok, 'GET', undefined, FORGED))).status).toBe(
        403,
      );
      expect(
        (await t.request(`/backend/merchant/feedback/${id}/reply`, as(tok, 'POST', { reply: '回复一下' })))
          .status,
      ).toBe(403);
      expect(
        (await t.json<DashboardSummary>('/backend/dashboard', as(tok))).body.feedback_open,
      ).toBeUndefined();
    }
    expect((await t.request('/backend/merchant/feedback')).status).toBe(401);
    expect(await snapshot()).toEqual(before);
  });

  it('bad replies (property-based) answer 4xx and change nothing', async () => {
    const before = await snapshot();
    const body = fc.oneof(
      fc.record({
        reply: fc.oneof(
          fc.constant(''),
          fc.constant(' x '),
          fc.string({ minLength: 501, maxLength: 520 }),
          fc.integer(),
          fc.constant(null),
        ),
      }),
      fc.anything(),
    );
    await fc.assert(
      fc.asyncProperty(body, fc.constantFrom(1, 0, -1, 999999), async (b, id) => {
        const r = await t.request(`/backend/merchant/feedback/${id}/reply`, as(merchant, 'POST', b));
        expect(r.status).toBeGreaterThanOrEqual(400);
        expect(r.status).toBeLessThan(500);
      }),
      { numRuns: 50 },
    );
    expect(await snapshot()).toEqual(before);
  });
});
