/**
 * Member feedback over the real app: filing with and without a device (merchant from the device, or from the
 * member's latest order), the member's own list with the merchant's reply, and property-based bad input that must
 * answer 4xx and change nothing.
 */
import { count, eq } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FeedbackItem, Page } from '../../../src/domain/api';
import { feedback, members } from '../../../server/db/schema';
import { createTestApp, postJson, signInMember, type TestWorld, withCookie, WORLD } from '../test-app';

let t: TestWorld;
let carol: string;
let dave: string;

const feedbackCount = async () => (await t.deps.db.select({ n: count() }).from(feedback))[0]!.n;
const post = (cookie: string, body: unknown) =>
  t.json<FeedbackItem & { code?: string }>('/backend/user/feedback', withCookie(cookie, postJson(body)));

beforeAll(async () => {
  t = await createTestApp(WORLD);
  carol = await signInMember(t, 'feedback-carol');
  dave = await signInMember(t, 'feedback-dave');
});
afterAll(async () => {
  await t?.close();
});

describe('feedback', () => {
  it('files feedback about a device for its merchant and lists it with the reply, newest first', async () => {
    const a = await post(carol, { category: 'device', content: '充电桩插头松动，充不上电', device_id: 2 });
    expect(a.status).toBe(201);
    expect(a.body).toMatchObject({
      category: 'device',
      content: '充电桩插头松动，充不上电',
      device_id: 2,
      device_name: '广场 2 号充电桩',
      reply: null,
      replied_at: null,
    });
    const [row] = await t.deps.db.select().from(feedback).where(eq(feedback.id, a.body.id));
    expect(row!.merchant_id).toBe(1);

    const b = await post(carol, { category: 'suggestion', content: '  希望增加夜间优惠套餐  ' });
    expect(b.status).toBe(201);
    expect(b.body.content).toBe('希望增加夜间优惠套餐');
    expect(b.body.device_id).toBeNull();

    // The merchant replies (written to the row directly, as the merchant's reply does).
    await t.deps.db
      .update(feedback)
      .set({ reply: '已安排维修，感谢反馈', replied_at: new Date() })
      .where(eq(feedback.id, a.body.id));

    const list = await t.json<Page<FeedbackItem>>('/backend/user/feedback', withCookie(carol));
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(2);
    expect(list.body.page).toBe(1);
    expect(list.body.items.map((i) => i.id)).toEqual([b.body.id, a.body.id]);
    expect(list.body.items[1]!.reply).toBe('已安排维修，感谢反馈');
    expect(list.body.items[1]!.replied_at).toMatch(/Z$/);

    const paged = await t.json<Page<FeedbackItem>>(
      '/backend/user/feedback?page=2&page_size=1',
      withCookie(carol),
    );
    expect(paged.body.items.map((i) => i.id)).toEqual([a.body.id]);

    // Dave sees none of Carol's.
    const other = await t.json<Page<FeedbackItem>>('/backend/user/feedback', withCookie(dave));
    expect(other.body).toEqual({ items: [], total: 0, page: 1, page_size: 20 });
  });

  it("without a device, the merchant is that of the member's latest order (none yet: no merchant)", async () => {
    const r = await post(dave, { category: 'other', content: '第一次使用，有问题想咨询' });
    expect(r.status).toBe(201);
    const [row] = await t.deps.db.select().from(feedback).where(eq(feedback.id, r.body.id));
    expect(row!.merchant_id).toBeNull();
    const [m] = await t.deps.db.select().from(members).where(eq(members.openid, 'feedback-dave'));
    expect(row!.member_id).toBe(m!.id);
  });

  it('an unknown device is 404 and needs a signed-in member (401)', async () => {
    const before = await feedbackCount();
    const r = await post(carol, { category: 'device', content: '这台设备不存在吧', device_id: 99999 });
    expect(r.status).toBe(404);
    const anon = await t.json<{ code: string }>(
      '/backend/user/feedback',
      postJson({ category: 'other', content: '匿名反馈内容' }),
    );
    expect(anon.status).toBe(401);
    expect(anon.body.code).toBe('WECHAT_AUTH_REQUIRED');
    expect(await feedbackCount()).toBe(before);
  });

  it('a member may file 20 a day; the 21st is 429 and stores nothing', async () => {
    const erin = await signInMember(t, 'feedback-erin');
    for (let i = 0; i < 20; i++) {
      expect((await post(erin, { category: 'other', content: `第 ${i + 1} 条反馈内容` })).status).toBe(201);
    }
    const before = await feedbackCount();
    const r = await post(erin, { category: 'other', content: '第 21 条反馈内容' });
    expect(r.status).toBe(429);
    expect(r.body.code).toBe('TOO_MANY_ATTEMPTS');
    expect(await feedbackCount()).toBe(before);
    t.advance(24 * 3600_000 + 1000);
    try {
      expect((await post(erin, { category: 'other', content: '第二天的反馈内容' })).status).toBe(201);
    } finally {
      t.advance(-(24 * 3600_000 + 1000));
    }
  });

  it('bad input of any shape answers 4xx with a Chinese message and stores nothing', async () => {
    const before = await feedbackCount();
    const badBody = fc.oneof(
      fc.anything(),
      fc.record(
        {
          category: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
          content: fc.oneof(
            fc.string({ maxLength: 4 }),
            fc.string({ minLength: 501, maxLength: 600 }),
            fc.integer(),
          ),
          device_id: fc.oneof(fc.integer({ max: 0 }), fc.double(), fc.string(), fc.constant(2 ** 40)),
        },
        { requiredKeys: [] },
      ),
    );
    await fc.assert(
      fc.asyncProperty(badBody, async (body) => {
        const r = await t.json<{ code: string; message: string }>(
          '/backend/user/feedback',
          withCookie(carol, postJson(JSON.stringify(body) ?? 'undefined')),
        );
        expect(r.status).toBeGreaterThanOrEqual(400);
        expect(r.status).toBeLessThan(500);
        expect(r.body.message).toMatch(/[\u4e00-\u9fa5]/);
      }),
      { numRuns: 60 },
    );
    for (const raw of ['', '{', '[]', 'null', '"text"']) {
      const r = await t.json('/backend/user/feedback', withCookie(carol, postJson(raw)));
      expect(r.status, raw).toBe(400);
    }
    const pageBad = await t.json('/backend/user/feedback?page=0&page_size=1000', withCookie(carol));
    expect(pageBad.status).toBe(400);
    expect(await feedbackCount()).toBe(before);
  });
});
