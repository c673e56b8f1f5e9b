/**
 * `/backend/merchant/members`: members with a wallet or an order at the merchant (the admin: every merchant's,
 * with a merchant filter), searchable by nickname or number; a member's page (wallet entries, orders, sessions,
 * and each of them paged on its own);
 * and a bonus credit (compensation) with a required note: one ledger transaction from the external promotion
 * wallet to the member's bonus, a `bonus_credits` row keyed by `Idempotency-Key` and an audit row, all in one
 * transaction (docs/decisions.md D17).
 */
import { and, eq } from 'drizzle-orm';
import { Hono } from 'hono';
import {
  BonusCreditSchema,
  MEMBER_HISTORIES,
  MemberDetailQuerySchema,
  MemberHistoryQuerySchema,
  MemberListQuerySchema,
  type BonusCreditResult,
  type MemberDetail,
} from '../../../src/domain/members.schema';
import { merchantScope, requireStaff, staffOf } from '../../auth/staff.middleware';
import type { AppEnv, StaffAuth } from '../../context';
import type { Db, Tx } from '../../db/client';
import { bonus_credits, merchants } from '../../db/schema';
import { HttpError, notFound, validationFailed } from '../../lib/errors';
import { offsetOf, pageOf } from '../../lib/list';
import { parseJson, parseParam, parseQuery, validate } from '../../lib/validate';
import { writeAudit } from '../../services/audit';
import { externalWallet, memberWallet, postTransaction, spendable } from '../../services/ledger';
import { IdempotencyKeySchema, isUniqueViolation } from '../../services/orders/idempotency';
import { listMembers, memberEntries, memberOrders, memberSessions } from './members.queries';

const HISTORY = { entries: memberEntries, orders: memberOrders, sessions: memberSessions };

/** The merchant a member call is about: the staff's own, or for the admin the one it names (required). */
async function merchantOf(db: Db | Tx, staff: StaffAuth, named: number | undefined): Promise<number> {
  const own = merchantScope(staff);
  if (own !== null) return own;
  if (named === undefined) throw validationFailed({ merchant_id: '请选择商户' });
  const [m] = await db.select({ id: merchants.id }).from(merchants).where(eq(merchants.id, named));
  if (!m) throw notFound('商户不存在');
  return m.id;
}

/** The member at that merchant, or 404 (no wallet and no order there: not this merchant's member). */
async function memberAt(db: Db | Tx, memberId: number, merchantId: number) {
  const [[m]] = await listMembers(db, { member_id: memberId, merchant_id: merchantId, limit: 1, offset: 0 });
  if (!m) throw notFound('会员不存在');
  return m;
}

function toCredit(
  row: typeof bonus_credits.$inferSelect,
  wallet: { principal_fen: number; cash_principal_fen: number; bonus_fen: number },
): BonusCreditResult {
  return {
    id: row.id,
    member_id: row.member_id,
    merchant_id: row.merchant_id,
    amount_fen: row.amount_fen,
    note: row.note,
    created_at: row.created_at.toISOString(),
    balance_fen: spendable(wallet),
    bonus_fen: wallet.bonus_fen,
  };
}

export function membersRoutes() {
  const r = new Hono<AppEnv>();
  r.use('*', requireStaff('merchant.members'));

  r.get('/', async (c) => {
    const staff = staffOf(c);
    const q = parseQuery(c, MemberListQuerySchema);
    const [items, total] = await listMembers(c.var.deps.db, {
      merchant_id: merchantScope(staff) ?? q.merchant_id,
      q: q.q,
      limit: q.page_size,
      offset: offsetOf(q),
    });
    return c.json(pageOf(items, total, q));
  });

  r.get('/:id', async (c) => {
    const { db } = c.var.deps;
    const id = parseParam(c, 'id');
    const q = parseQuery(c, MemberDetailQuerySchema);
    const merchantId = await merchantOf(db, staffOf(c), q.merchant_id);
    const member = await memberAt(db, id, merchantId);
    const [[entries], [orders], [sessions]] = await Promise.all([
      memberEntries(db, id, merchantId),
      memberOrders(db, id, merchantId),
      memberSessions(db, id, merchantId),
    ]);
    const body: MemberDetail = { member, entries, orders, sessions };
    return c.json(body);
  });

  // The member's wallet entries, orders and sessions at the merchant, each paged.
  for (const list of MEMBER_HISTORIES) {
    r.get(`/:id/${list}`, async (c) => {
      const { db } = c.var.deps;
      const id = parseParam(c, 'id');
      const q = parseQuery(c, MemberHistoryQuerySchema);
      const merchantId = await merchantOf(db, staffOf(c), q.merchant_id);
      await memberAt(db, id, merchantId);
      const [items, total] = await HISTORY[list](db, id, merchantId, {
        limit: q.page_size,
        offset: offsetOf(q),
      });
      return c.json(pageOf<unknown>(items, total, q));
    });
  }

  r.post('/:id/bonus', async (c) => {
    const staff = staffOf(c);
    const { db } = c.var.deps;
    const id = parseParam(c, 'id');
    const input = await parseJson(c, BonusCreditSchema);
    const rawKey = c.req.header('idempotency-key');
    if (rawKey === undefined) {
      throw new HttpError(400, 'IDEMPOTENCY_KEY_REQUIRED', '缺少 Idempotency-Key，请刷新后重试');
    }
    const key = validate(IdempotencyKeySchema, rawKey);
    const merchantId = await merchantOf(db, staff, input.merchant_id);
    const run = () =>
      db.transaction(async (tx) => {
        await memberAt(tx, id, merchantId);
        // The member's wallet first (the lock order every movement follows): credits to one member queue here.
        const wallet = await memberWallet(tx, id, merchantId, { lock: true });
        const [first] = await tx
          .select()
          .from(bonus_credits)
          .where(and(eq(bonus_credits.merchant_id, merchantId), eq(bonus_credits.idempotency_key, key)));
        if (first) return { status: 200 as const, body: toCredit(sameCredit(first, id, input), wallet) };
        const promo = await externalWallet(tx, 'promotion');
        const txnId = await postTransaction(tx, {
          kind: 'bonus_credit',
          memo: `赠送：${input.note}`.slice(0, 200),
          entries: [
            { wallet_id: wallet.id, bucket: 'bonus', amount_fen: input.amount_fen },
            { wallet_id: promo.id, bucket: 'principal', amount_fen: -input.amount_fen },
          ],
        });
        const [row] = await tx
          .insert(bonus_credits)
          .values({
            merchant_id: merchantId,
            member_id: id,
            amount_fen: input.amount_fen,
            note: input.note,
            account_id: staff.account_id,
            idempotency_key: key,
            ledger_transaction_id: txnId,
          })
          .returning();
        const after = await memberWallet(tx, id, merchantId);
        const body = toCredit(row!, after);
        await writeAudit(tx, staff, {
          action: 'members.bonus',
          entity: 'members',
          entity_id: id,
          merchant_id: merchantId,
          before: { principal_fen: wallet.principal_fen, bonus_fen: wallet.bonus_fen },
          after: { principal_fen: after.principal_fen, bonus_fen: after.bonus_fen },
          extra: { amount_fen: input.amount_fen, note: input.note, bonus_credit_id: row!.id },
        });
        return { status: 201 as const, body };
      });
    try {
      const out = await run();
      return c.json(out.body, out.status);
    } catch (err) {
      // The same key at the same moment for another member of this merchant: the first one won; answer as a repeat.
      if (!isUniqueViolation(err)) throw err;
      const out = await run();
      return c.json(out.body, out.status);
    }
  });

  return r;
}

/** A repeated key must carry the same request; another member or amount under a used key is refused. */
function sameCredit(
  first: typeof bonus_credits.$inferSelect,
  memberId: number,
  input: { amount_fen: number; note: string },
) {
  if (first.member_id !== memberId || first.amount_fen !== input.amount_fen || first.note !== input.note) {
    throw new HttpError(409, 'IDEMPOTENCY_KEY_REUSED', '该 Idempotency-Key 已用于另一笔不同的请求');
  }
  return first;
}
