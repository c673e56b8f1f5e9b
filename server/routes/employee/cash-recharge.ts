/**
 * The cash desk's flows (docs/decisions.md D12): a member by code with their balance at one merchant, a cash
 * recharge (idempotent per employee and Idempotency-Key), and the employee's own cash recharges of today.
 */
import { and, desc, eq, sql } from 'drizzle-orm';
import type {
  CashRechargeList,
  CashRechargeOrder,
  CashRechargeResponse,
  EmployeeMember,
} from '../../../src/domain/cash-recharge.schema';
import type { AppDeps, StaffAuth } from '../../context';
import type { Db, Tx } from '../../db/client';
import { accounts, members, merchants, orders, packages, wallets } from '../../db/schema';
import { HttpError, notFound } from '../../lib/errors';
import { writeAudit } from '../../services/audit';
import { memberWallet, walletKind } from '../../services/ledger';
import { bookCashRecharge, newOrderNo, type Order } from '../../services/orders';
import { isUniqueViolation } from '../../services/orders/idempotency';

export const MEMBER_NOT_FOUND_MESSAGE =
  '未找到该会员码对应的会员，请核对后重新输入，或请顾客在「我的」页面出示会员码';

/** The member with this code and their wallet at `merchantId` (zeros before the first recharge there), or 404. */
export async function memberAt(db: Db | Tx, code: string, merchantId: number): Promise<EmployeeMember> {
  const [m] = await db
    .select({
      id: members.id,
      code: members.code,
      nickname: members.nickname,
      avatar_url: members.avatar_url,
      principal_fen: wallets.principal_fen,
      cash_principal_fen: wallets.cash_principal_fen,
      bonus_fen: wallets.bonus_fen,
      wallet_id: wallets.id,
    })
    .from(members)
    .leftJoin(
      wallets,
      and(eq(wallets.member_id, members.id), eq(wallets.merchant_id, merchantId), walletKind('member')),
    )
    .where(eq(members.code, code));
  if (!m) throw notFound(MEMBER_NOT_FOUND_MESSAGE, 'MEMBER_NOT_FOUND');
  // One principal, whatever its source (docs/decisions.md D18).
  const principal = (m.principal_fen ?? 0) + (m.cash_principal_fen ?? 0);
  const bonus = m.bonus_fen ?? 0;
  return {
    id: m.id,
    code: m.code,
    nickname: m.nickname || '微信用户',
    avatar_url: m.avatar_url,
    merchant_id: merchantId,
    balance_fen: principal + bonus,
    principal_fen: principal,
    bonus_fen: bonus,
    has_wallet: m.wallet_id !== null,
  };
}

/** The merchant named by the admin must exist (staff of a disabled merchant are signed out already). */
export async function assertMerchantExists(db: Db, merchantId: number): Promise<void> {
  const [m] = await db
    .select({ id: merchants.id, status: merchants.status })
    .from(merchants)
    .where(eq(merchants.id, merchantId));
  if (!m) throw notFound('商户不存在');
  if (m.status !== 'active') throw new HttpError(409, 'MERCHANT_DISABLED', '该商户已停止营业');
}

const orderColumns = {
  order: orders,
  member_code: members.code,
  member_nickname: members.nickname,
  package_name: packages.name,
  operator_name: accounts.name,
};

function cashOrders(db: Db | Tx) {
  return db
    .select(orderColumns)
    .from(orders)
    .innerJoin(members, eq(members.id, orders.member_id))
    .leftJoin(packages, eq(packages.id, orders.package_id))
    .innerJoin(accounts, eq(accounts.id, orders.operator_account_id));
}

type CashOrderRow = Awaited<ReturnType<ReturnType<typeof cashOrders>['where']>>[number];

export function toCashOrder(r: CashOrderRow): CashRechargeOrder {
  return {
    order_no: r.order.order_no,
    status: 'paid',
    method: 'cash',
    amount_fen: r.order.amount_fen,
    bonus_fen: r.order.bonus_fen,
    package_id: r.order.package_id,
    package_name: r.package_name,
    note: r.order.note ?? '',
    member: { id: r.order.member_id!, code: r.member_code, nickname: r.member_nickname || '微信用户' },
    operator: { id: r.order.operator_account_id!, name: r.operator_name },
    created_at: r.order.created_at.toISOString(),
  };
}

async function cashOrderById(db: Db | Tx, id: number): Promise<CashRechargeOrder> {
  const [r] = await cashOrders(db).where(eq(orders.id, id));
  if (!r) throw new Error(`cash order ${id} not found`);
  return toCashOrder(r);
}

async function byKey(db: Db | Tx, accountId: number, key: string): Promise<Order | undefined> {
  const [o] = await db
    .select()
    .from(orders)
    .where(and(eq(orders.operator_account_id, accountId), eq(orders.idempotency_key, key)));
  return o;
}

export interface CashRechargeInput {
  member_code: string;
  merchant_id: number;
  package_id?: number | undefined;
  amount_fen?: number | undefined;
  note: string;
}

/** The first answer again, if the key was used for this very request; a different request is a 409. */
async function replay(db: Db, first: Order, input: CashRechargeInput): Promise<CashRechargeResponse> {
  const [m] = await db
    .select({ code: members.code })
    .from(members)
    .where(eq(members.id, first.member_id ?? 0));
  const same =
    first.kind === 'recharge' &&
    first.method === 'cash' &&
    first.merchant_id === input.merchant_id &&
    m?.code === input.member_code &&
    (input.package_id !== undefined
      ? first.package_id === input.package_id
      : first.package_id === null && first.amount_fen === input.amount_fen);
  if (!same) {
    throw new HttpError(409, 'IDEMPOTENCY_KEY_REUSED', '该 Idempotency-Key 已用于另一笔不同的请求', {
      order_no: first.order_no,
    });
  }
  const order = await cashOrderById(db, first.id);
  return { order, member: await memberAt(db, order.member.code, first.merchant_id), replayed: true };
}

/**
 * Credits a cash recharge (docs/decisions.md D12): one transaction locks the member's wallet (opening it on the
 * first recharge), checks the key again (a twin request may have committed while this one waited for the lock),
 * inserts the paid order with the employee as operator, books it through the ledger and writes the audit row.
 */
export async function cashRecharge(
  deps: Pick<AppDeps, 'db' | 'now'>,
  staff: StaffAuth,
  input: CashRechargeInput,
  key: string,
): Promise<CashRechargeResponse> {
  const { db } = deps;
  const seen = await byKey(db, staff.account_id, key);
  if (seen) return replay(db, seen, input);
  const member = await memberAt(db, input.member_code, input.merchant_id);
  const { amount, bonus } = await rechargeAmounts(db, input);
  let result: { id: number } | { replayOf: Order };
  try {
    result = await db.transaction(async (tx) => {
      await memberWallet(tx, member.id, input.merchant_id, { lock: true });
      const twin = await byKey(tx, staff.account_id, key);
      if (twin) return { replayOf: twin };
      return bookRecharge(tx, staff, member.id, input, key, { amount, bonus, now: deps.now() });
    });
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    const first = await byKey(db, staff.account_id, key);
    if (!first) throw err;
    result = { replayOf: first };
  }
  if ('replayOf' in result) return replay(db, result.replayOf, input);
  return {
    order: await cashOrderById(db, result.id),
    member: await memberAt(db, member.code, input.merchant_id),
    replayed: false,
  };
}

/** What a recharge credits: the active package's pay and bonus (else 400), or the free amount with no bonus. */
async function rechargeAmounts(db: Db, input: CashRechargeInput): Promise<{ amount: number; bonus: number }> {
  if (input.package_id === undefined) return { amount: input.amount_fen ?? 0, bonus: 0 };
  const [pkg] = await db
    .select()
    .from(packages)
    .where(
      and(
        eq(packages.id, input.package_id),
        eq(packages.merchant_id, input.merchant_id),
        eq(packages.active, true),
      ),
    );
  if (!pkg) {
    throw new HttpError(400, 'PACKAGE_NOT_FOUND', '充值套餐不存在或已下架，请重新选择', {
      package_id: '充值套餐不存在或已下架',
    });
  }
  return { amount: pkg.pay_fen, bonus: pkg.bonus_fen };
}

/** Inside the recharge's transaction: the paid cash order, its booking through the ledger and the audit row. */
async function bookRecharge(
  tx: Tx,
  staff: StaffAuth,
  memberId: number,
  input: CashRechargeInput,
  key: string,
  { amount, bonus, now }: { amount: number; bonus: number; now: Date },
): Promise<{ id: number }> {
  const [order] = await tx
    .insert(orders)
    .values({
      order_no: newOrderNo('recharge', now),
      kind: 'recharge',
      method: 'cash',
      status: 'paid',
      member_id: memberId,
      merchant_id: input.merchant_id,
      package_id: input.package_id ?? null,
      operator_account_id: staff.account_id,
      amount_fen: amount,
      bonus_fen: bonus,
      note: input.note,
      idempotency_key: key,
      paid_at: now,
      created_at: now,
    })
    .returning();
  if (!order) throw new Error('order not inserted');
  await bookCashRecharge(tx, order);
  await writeAudit(tx, staff, {
    action: 'cash_recharge.create',
    entity: 'orders',
    entity_id: order.order_no,
    merchant_id: input.merchant_id,
    after: { member_id: memberId, amount_fen: amount, bonus_fen: bonus, package_id: order.package_id },
    extra: { note: input.note },
  });
  return { id: order.id };
}

/** The employee's own cash recharges of the local day (`TZ`), newest first. */
export async function todaysCashRecharges(
  db: Db,
  staff: StaffAuth,
  merchantId: number,
  tz: string,
  now: Date,
): Promise<CashRechargeList> {
  const localDay = sql`(${now.toISOString()}::timestamptz at time zone ${tz})::date`;
  const rows = await cashOrders(db)
    .where(
      and(
        eq(orders.kind, 'recharge'),
        eq(orders.method, 'cash'),
        eq(orders.merchant_id, merchantId),
        eq(orders.operator_account_id, staff.account_id),
        sql`(${orders.created_at} at time zone ${tz})::date = ${localDay}`,
      ),
    )
    .orderBy(desc(orders.id))
    .limit(200);
  const [day] = await db
    .execute<{ d: string }>(sql`select to_char(${localDay}, 'YYYY-MM-DD') as d`)
    .then((r) => (r as unknown as { rows: { d: string }[] }).rows);
  const items = rows.map(toCashOrder);
  return {
    items,
    total: items.length,
    total_fen: items.reduce((s, o) => s + o.amount_fen, 0),
    date: day?.d ?? '',
  };
}
