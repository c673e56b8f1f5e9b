/**
 * `/backend/wallet`: the signed-in account's own money, the merchant's settlement wallet (level 2) or the partner's
 * share wallet (level 3): balances and entries, its own withdrawal requests, and a new request that freezes the
 * amount at once (`Idempotency-Key`: a repeat answers the first request and creates nothing).
 */
import { eq } from 'drizzle-orm';
import { Hono } from 'hono';
import { PageQuerySchema } from '../../../src/domain/api';
import { WalletQuerySchema, WithdrawalRequestSchema } from '../../../src/domain/wallet.schema';
import { requireStaff, staffOf } from '../../auth/staff.middleware';
import type { AppEnv } from '../../context';
import { withdrawals } from '../../db/schema';
import { idempotencyKey } from '../../lib/idempotency-key';
import { pageOf } from '../../lib/list';
import { parseJson, parseQuery } from '../../lib/validate';
import { ownWallet, requestWithdrawal } from '../../services/withdrawals/requests';
import { listWithdrawals, walletView, withdrawalById } from '../../services/withdrawals/views';

export function walletRoutes() {
  const r = new Hono<AppEnv>();

  r.get('/', requireStaff('wallet'), async (c) => {
    const staff = staffOf(c);
    const q = parseQuery(c, WalletQuerySchema);
    const view = await c.var.deps.db.transaction(async (tx) => walletView(tx, await ownWallet(tx, staff), q));
    return c.json(view);
  });

  r.get('/withdrawals', requireStaff('wallet'), async (c) => {
    const staff = staffOf(c);
    const q = parseQuery(c, PageQuerySchema);
    const { items, total } = await listWithdrawals(
      c.var.deps.db,
      eq(withdrawals.account_id, staff.account_id),
      q,
    );
    return c.json(pageOf(items, total, q));
  });

  r.post('/withdrawals', requireStaff('wallet'), async (c) => {
    const staff = staffOf(c);
    const key = idempotencyKey(c);
    const input = await parseJson(c, WithdrawalRequestSchema);
    const { db, now } = c.var.deps;
    const result = await db.transaction((tx) =>
      requestWithdrawal(tx, staff, { amount_fen: input.amount_fen, idempotency_key: key, now: now() }),
    );
    const body = await withdrawalById(db, result.withdrawal.id);
    return c.json(body, result.replay ? 200 : 201);
  });

  return r;
}
