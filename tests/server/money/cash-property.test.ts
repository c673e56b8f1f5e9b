/**
 * Cash in the ledger, property-based (docs/decisions.md D18): random interleavings of cash and WeChat recharges,
 * wallet pays funded by whatever principal the member holds (cash, online, bonus), WeChat pays, cash sales at the
 * counter, and early stops refunding part or all of what is left. After EVERY step the shared invariants hold
 * (balances equal their entries, no member wallet below zero, each order's cash matches the cash it took, and per
 * merchant: settlement + cash held = earned revenue after fee and shares + members' unspent cash principal), and a
 * model of each member's spendable balance agrees with the ledger.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database, Db } from '../../../server/db/client';
import { assertLedgerInvariants } from './invariants';
import { settleWechatRefunds } from './refund-fixtures';
import { createTestDb } from '../test-db';
import {
  cashRecharge,
  cashWorld,
  memberBuckets,
  newMember,
  pay,
  stop,
  wechatRecharge,
  type PayMethod,
} from './cash-fixtures';

let database: Database;
let db: Db;
beforeAll(async () => {
  database = await createTestDb();
  db = database.db;
});
afterAll(async () => {
  await database?.close();
});

type Op =
  | { op: 'cashRecharge' | 'wechatRecharge'; member: number; pay: number; bonus: number }
  | { op: 'pay'; method: PayMethod; member: number; amount: number }
  | { op: 'stop'; order: number; part: number };

const member = fc.integer({ min: 0, max: 1 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    op: fc.constantFrom('cashRecharge' as const, 'wechatRecharge' as const),
    member,
    pay: fc.integer({ min: 1, max: 5000 }),
    bonus: fc.integer({ min: 0, max: 500 }),
  }),
  fc.record({
    op: fc.constant('pay' as const),
    method: fc.constantFrom<PayMethod>('wallet', 'wallet', 'wechat', 'cash'),
    member,
    amount: fc.integer({ min: 1, max: 3000 }),
  }),
  fc.record({ op: fc.constant('stop' as const), order: fc.nat(20), part: fc.integer({ min: 1, max: 4 }) }),
);

describe('cash and online money interleaved (property-based)', () => {
  it('every step keeps the ledger and merchant invariants and the members’ balances', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 1000 }),
        fc.array(fc.integer({ min: 1, max: 4000 }), { minLength: 0, maxLength: 2 }),
        fc.array(opArb, { minLength: 1, maxLength: 12 }),
        async (feeBp, ratios, ops) => {
          const w = await cashWorld(db, feeBp, ratios);
          const members = [await newMember(db), await newMember(db)];
          const balance = [0, 0];
          const paid: { id: number; left: number; member: number | null; method: PayMethod }[] = [];
          for (const o of ops) {
            if (o.op === 'cashRecharge' || o.op === 'wechatRecharge') {
              const recharge = o.op === 'cashRecharge' ? cashRecharge : wechatRecharge;
              await recharge(db, w, members[o.member]!, o.pay, o.bonus);
              balance[o.member]! += o.pay + o.bonus;
            } else if (o.op === 'pay') {
              const who = o.method === 'cash' ? null : members[o.member]!;
              const id = await pay(db, w, o.method, who, o.amount);
              const covered = o.method !== 'wallet' || balance[o.member]! >= o.amount;
              expect(id !== undefined, `a ${o.method} pay of ${o.amount}`).toBe(covered);
              if (id === undefined) continue;
              if (o.method === 'wallet') balance[o.member]! -= o.amount;
              paid.push({
                id,
                left: o.amount,
                member: o.method === 'cash' ? null : o.member,
                method: o.method,
              });
            } else if (o.op === 'stop') {
              const target = paid[o.order % Math.max(paid.length, 1)];
              if (!target || target.left === 0) continue;
              const refund = o.part === 4 ? target.left : Math.floor((target.left * o.part) / 4);
              if (refund === 0) continue;
              await stop(db, target.id, refund);
              target.left -= refund;
              // A wallet pay comes back to the member's wallet; cash goes back to the till; a WeChat pay goes back
              // to WeChat through the outbox (booked here as WeChat reporting success would).
              if (target.method === 'wechat') expect(await settleWechatRefunds(db)).toBe(1);
              else if (target.member !== null) balance[target.member]! += refund;
            }
            await assertLedgerInvariants(db);
            for (const [i, m] of members.entries()) {
              const b = await memberBuckets(db, w, m);
              const total = Object.values(b).reduce((s, v) => s + Number(v), 0);
              expect(total, `member ${i} after ${o.op}`).toBe(balance[i]);
            }
          }
        },
      ),
      { numRuns: 25 },
    );
  }, 600_000);
});
