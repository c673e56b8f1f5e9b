/**
 * Property-based (fast-check): random sequences of members' payments (WeChat and wallet), refunds, recharges and
 * bonus credits interleaved with withdrawal requests and the admin's approve / reject / pay, through the real
 * services and the HTTP API. After every step, for the demo merchant's settlement wallet and the partner's share
 * wallet: available + frozen + paid out = everything credited (the ledger's non-withdrawal movements), frozen and
 * paid out are what the accepted requests and moves say, every request is accepted exactly when 1 yuan <= amount
 * <= available, every move exactly when the lifecycle allows it, and the ledger invariants hold.
 */
import { and, eq, notLike, sql } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WalletView, Withdrawal } from '../../../src/domain/wallet.schema';
import { ledger_entries, ledger_transactions } from '../../../server/db/schema';
import { refundOrder } from '../../../server/services/orders';
import { assertLedgerInvariants } from '../money/invariants';
import { settleWechatRefunds } from '../money/refund-fixtures';
import { createMember, fundMember, orderRow } from '../device-sessions/devices-fixtures';
import { bearer, createTestApp, postJson, type TestApp } from '../test-app';
import { accountByUsername, bonusCredit, paidConsume, walletRow } from './wallet-fixtures';
import { merchantWallet, partnerWallet } from '../../../server/services/ledger';

let t: TestApp;
const tok: Record<string, string> = {};
let members: number[] = [];
const walletIds = { merchant: 0, partner: 0 };
/** What the runs did, so the test can show it exercised every path. */
const seen = { accepted: 0, refused: 0, moved: 0, illegal: 0 };
beforeAll(async () => {
  t = await createTestApp();
  for (const u of ['admin', 'merchant', 'partner']) tok[u] = await t.login(u);
  members = [await createMember(t.deps.db), await createMember(t.deps.db)];
  const partner = await accountByUsername(t.deps.db, 'partner');
  await t.deps.db.transaction(async (tx) => {
    walletIds.merchant = (await merchantWallet(tx, 1)).id;
    walletIds.partner = (await partnerWallet(tx, partner.id, 1)).id;
  });
});
afterAll(async () => t?.close());

type Who = 'merchant' | 'partner';
type Op =
  | { op: 'pay'; device: number; method: 'wechat' | 'wallet'; member: number }
  | { op: 'recharge'; member: number; fen: number }
  | { op: 'bonus'; member: number; fen: number }
  | { op: 'refund'; order: number; part: number }
  | { op: 'request'; who: Who; fen: number }
  | { op: 'move'; withdrawal: number; action: 'approve' | 'reject' | 'pay' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('pay' as const),
      device: fc.integer({ min: 1, max: 6 }),
      method: fc.constantFrom('wechat' as const, 'wallet' as const),
      member: fc.nat(1),
    }),
  },
  fc.record({
    op: fc.constant('recharge' as const),
    member: fc.nat(1),
    fen: fc.integer({ min: 100, max: 2000 }),
  }),
  fc.record({ op: fc.constant('bonus' as const), member: fc.nat(1), fen: fc.integer({ min: 1, max: 500 }) }),
  fc.record({ op: fc.constant('refund' as const), order: fc.nat(), part: fc.integer({ min: 1, max: 100 }) }),
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('request' as const),
      who: fc.constantFrom<Who>('merchant', 'partner'),
      fen: fc.oneof(fc.integer({ min: 1, max: 400 }), fc.integer({ min: 90, max: 110 })),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('move' as const),
      withdrawal: fc.nat(),
      action: fc.constantFrom('approve' as const, 'reject' as const, 'pay' as const),
    }),
  },
);

const asUser = (who: string, init: RequestInit = {}): RequestInit => ({
  ...init,
  headers: {
    ...(init.headers as Record<string, string>),
    ...(bearer(tok[who]!).headers as Record<string, string>),
  },
});
const view = async (who: Who) => (await t.json<WalletView>('/backend/wallet', asUser(who))).body;

/** Everything credited to a wallet: the sum of its entries from every movement that is not a withdrawal's. */
async function credited(walletId: number): Promise<number> {
  const [r] = await t.deps.db
    .select({ n: sql<number>`coalesce(sum(${ledger_entries.amount_fen}), 0)`.mapWith(Number) })
    .from(ledger_entries)
    .innerJoin(ledger_transactions, eq(ledger_transactions.id, ledger_entries.transaction_id))
    .where(and(eq(ledger_entries.wallet_id, walletId), notLike(ledger_transactions.kind, 'withdrawal_%')));
  return r!.n;
}

interface Model {
  frozen: Record<Who, number>;
  paid: Record<Who, number>;
  withdrawals: { id: number; who: Who; fen: number; status: Withdrawal['status'] }[];
  orders: number[];
}

const NEXT: Record<string, [Withdrawal['status'], Withdrawal['status']]> = {
  approve: ['requested', 'approved'],
  reject: ['requested', 'rejected'],
  pay: ['approved', 'paid'],
};

async function run(m: Model, o: Op): Promise<void> {
  const db = t.deps.db;
  if (o.op === 'pay') {
    const id = await paidConsume(db, {
      member_id: members[o.member]!,
      device_id: o.device,
      method: o.method,
    });
    if (id !== undefined) m.orders.push(id);
  } else if (o.op === 'recharge') {
    await fundMember(db, members[o.member]!, 1, o.fen);
  } else if (o.op === 'bonus') {
    await bonusCredit(db, members[o.member]!, 1, o.fen);
  } else if (o.op === 'refund' && m.orders.length > 0) {
    const order = await orderRow(db, m.orders[o.order % m.orders.length]!);
    const left = order.amount_fen - order.refunded_fen;
    const amount = Math.ceil((left * o.part) / 100);
    // A refund takes back what the split credited; it may be refused when that money was withdrawn meanwhile.
    await db
      .transaction((tx) =>
        refundOrder(tx, { order_id: order.id, amount_fen: amount, reason: '属性测试退款' }),
      )
      .catch(() => undefined);
    // A WeChat pay's refund is booked when WeChat reports success (here at once).
    await settleWechatRefunds(db);
  } else if (o.op === 'request') {
    // What may be withdrawn: available less what refunds on their way may still take back (docs/money.md).
    const available = (await view(o.who)).withdrawable_fen;
    const res = await t.json<Withdrawal>(
      '/backend/wallet/withdrawals',
      asUser(o.who, postJson({ amount_fen: o.fen })),
    );
    const ok = o.fen >= 100 && o.fen <= available;
    expect(res.status).toBe(ok ? 201 : o.fen < 100 ? 400 : 409);
    seen[ok ? 'accepted' : 'refused'] += 1;
    if (ok) {
      m.frozen[o.who] += o.fen;
      m.withdrawals.push({ id: res.body.id, who: o.who, fen: o.fen, status: 'requested' });
    }
  } else if (o.op === 'move' && m.withdrawals.length > 0) {
    const w = m.withdrawals[o.withdrawal % m.withdrawals.length]!;
    const body =
      o.action === 'reject' ? { reason: '属性测试' } : o.action === 'pay' ? { reference: 'P' } : {};
    const res = await t.json(
      `/backend/admin/withdrawals/${w.id}/${o.action}`,
      asUser('admin', postJson(body)),
    );
    const [from, to] = NEXT[o.action]!;
    expect(res.status).toBe(w.status === from ? 200 : 409);
    seen[w.status === from ? 'moved' : 'illegal'] += 1;
    if (w.status !== from) return;
    w.status = to;
    if (to === 'rejected') m.frozen[w.who] -= w.fen;
    if (to === 'paid') {
      m.frozen[w.who] -= w.fen;
      m.paid[w.who] += w.fen;
    }
  }
}

describe('withdrawals interleaved with pays, refunds and bonus credits (property)', () => {
  it('available + frozen + paid out = everything credited, after every step', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 5, maxLength: 30 }), async (ops) => {
        const start = { merchant: await view('merchant'), partner: await view('partner') };
        const m: Model = {
          frozen: { merchant: start.merchant.frozen_fen, partner: start.partner.frozen_fen },
          paid: { merchant: start.merchant.paid_out_fen, partner: start.partner.paid_out_fen },
          withdrawals: [],
          orders: [],
        };
        for (const o of ops) {
          await run(m, o);
          for (const who of ['merchant', 'partner'] as const) {
            const v = await view(who);
            const row = await walletRow(t.deps.db, walletIds[who]);
            expect(v.frozen_fen).toBe(m.frozen[who]);
            expect(v.paid_out_fen).toBe(m.paid[who]);
            expect(v.available_fen).toBe(row.principal_fen);
            expect(v.available_fen + v.frozen_fen + v.paid_out_fen).toBe(await credited(walletIds[who]));
          }
        }
        await assertLedgerInvariants(t.deps.db);
      }),
      { numRuns: 15 },
    );
    expect(seen).toEqual({
      accepted: expect.any(Number),
      refused: expect.any(Number),
      moved: expect.any(Number),
      illegal: expect.any(Number),
    });
    expect(
      Object.values(seen).every((n) => n > 0),
      JSON.stringify(seen),
    ).toBe(true);
  }, 240_000);
});
