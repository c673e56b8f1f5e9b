/**
 * Withdrawals for the people who handle them. `/backend/merchant/withdrawals`: a merchant sees its own and its
 * partners' requests, the admin sees all (`?merchant_id=` filters). `/backend/admin/withdrawals/:id/approve |
 * reject | pay`: the lifecycle's moves; only the admin may make them (a merchant gets 403 on its own requests, 404
 * on another merchant's), an illegal move answers 409, and nothing changes on a refusal.
 */
import { and, eq } from 'drizzle-orm';
import { Hono, type Context } from 'hono';
import {
  WithdrawalListQuerySchema,
  WithdrawalPaySchema,
  WithdrawalRejectSchema,
} from '../../../src/domain/wallet.schema';
import { assertOwnMerchant, merchantWhere, requireStaff, staffOf } from '../../auth/staff.middleware';
import type { AppEnv } from '../../context';
import { withdrawals } from '../../db/schema';
import { notFound } from '../../lib/errors';
import { pageOf } from '../../lib/list';
import { parseJson, parseParam, parseQuery } from '../../lib/validate';
import type { WithdrawalAction } from '../../services/withdrawals/lifecycle';
import { actOnWithdrawal } from '../../services/withdrawals/requests';
import { listWithdrawals, withdrawalById } from '../../services/withdrawals/views';

export function merchantWithdrawalsRoutes() {
  const r = new Hono<AppEnv>();

  r.get('/', requireStaff('merchant.withdrawals'), async (c) => {
    const staff = staffOf(c);
    const q = parseQuery(c, WithdrawalListQuerySchema);
    const where = and(
      merchantWhere(staff, withdrawals.merchant_id),
      q.merchant_id ? eq(withdrawals.merchant_id, q.merchant_id) : undefined,
      q.status ? eq(withdrawals.status, q.status) : undefined,
    );
    const { items, total } = await listWithdrawals(c.var.deps.db, where, q);
    return c.json(pageOf(items, total, q));
  });

  r.get('/:id', requireStaff('merchant.withdrawals'), async (c) => {
    const staff = staffOf(c);
    const found = await withdrawalById(c.var.deps.db, parseParam(c, 'id'));
    if (!found) throw notFound('提现申请不存在');
    assertOwnMerchant(staff, found.merchant?.id, '提现申请');
    return c.json(found);
  });

  return r;
}

async function act(c: Context<AppEnv>, action: WithdrawalAction, note?: string) {
  const staff = staffOf(c);
  const id = parseParam(c, 'id');
  const { db, now } = c.var.deps;
  await db.transaction((tx) => actOnWithdrawal(tx, staff, { id, action, note, now: now() }));
  return c.json(await withdrawalById(db, id));
}

export function adminWithdrawalsRoutes() {
  const r = new Hono<AppEnv>();
  const guard = requireStaff('merchant.withdrawals');

  r.post('/:id/approve', guard, (c) => act(c, 'approve'));
  r.post('/:id/reject', guard, async (c) => {
    const { reason } = await parseJson(c, WithdrawalRejectSchema);
    return act(c, 'reject', reason);
  });
  r.post('/:id/pay', guard, async (c) => {
    const { reference } = await parseJson(c, WithdrawalPaySchema);
    return act(c, 'pay', reference);
  });

  return r;
}
