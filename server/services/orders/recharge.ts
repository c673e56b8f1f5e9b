/** POST /backend/user/recharge: a package bought with WeChat Pay. */
import { and, eq } from 'drizzle-orm';
import type { RechargeRequest, RechargeResponse } from '../../../src/domain/api';
import { members, merchants, packages } from '../../db/schema';
import { HttpError } from '../../lib/errors';
import { findByKey, replay, sameRequest } from './idempotency';
import { type PaymentDeps, newOrderNo, orderSummary } from './order';
import { insertPending } from './pay';
import { prepay, requireWechat } from './prepay';
import { safeReturnPath } from '../../lib/return-path';

/**
 * POST /backend/user/recharge: a pending recharge order of a package (pay + bonus) and its prepay. The wallet is
 * credited only from the verified notification or an order query.
 */
export async function rechargePackage(
  deps: PaymentDeps,
  memberId: number,
  req: RechargeRequest,
  opts: { idempotencyKey?: string | undefined; returnPath?: string | undefined } = {},
): Promise<RechargeResponse | Omit<RechargeResponse, 'jsapi'>> {
  const key = opts.idempotencyKey;
  const returnPath = safeReturnPath(opts.returnPath, '/user/profile');
  const expect = { kind: 'recharge' as const, package_id: req.package_id, merchant_id: req.merchant_id };
  if (key) {
    const first = await findByKey(deps.db, memberId, key);
    if (first) {
      sameRequest(first, expect);
      const body = await replay(deps, first, returnPath);
      return { order: body.order, ...(body.jsapi ? { jsapi: body.jsapi } : {}) };
    }
  }
  const [pkg] = await deps.db
    .select()
    .from(packages)
    .where(
      and(
        eq(packages.id, req.package_id),
        eq(packages.merchant_id, req.merchant_id),
        eq(packages.active, true),
      ),
    );
  if (!pkg)
    throw new HttpError(400, 'PACKAGE_NOT_FOUND', '充值套餐不存在或已下架，请重新选择', {
      package_id: req.package_id,
    });
  const [merchant] = await deps.db
    .select({ status: merchants.status, name: merchants.name })
    .from(merchants)
    .where(eq(merchants.id, req.merchant_id));
  if (merchant?.status !== 'active') throw new HttpError(409, 'MERCHANT_DISABLED', '该商户已停止营业');
  const wechat = requireWechat(deps);
  const [member] = await deps.db
    .select({ openid: members.openid })
    .from(members)
    .where(eq(members.id, memberId));
  if (!member) throw new HttpError(401, 'WECHAT_AUTH_REQUIRED', '需要微信授权');
  const inserted = await insertPending(
    deps,
    {
      order_no: newOrderNo('recharge', deps.now()),
      kind: 'recharge',
      method: 'wechat',
      status: 'pending',
      member_id: memberId,
      merchant_id: req.merchant_id,
      package_id: pkg.id,
      amount_fen: pkg.pay_fen,
      bonus_fen: pkg.bonus_fen,
      idempotency_key: key ?? null,
      created_at: deps.now(),
    },
    memberId,
    key,
  );
  if ('replayOf' in inserted) {
    sameRequest(inserted.replayOf, expect);
    const body = await replay(deps, inserted.replayOf, returnPath);
    return { order: body.order, ...(body.jsapi ? { jsapi: body.jsapi } : {}) };
  }
  const jsapi = await prepay(
    deps,
    wechat,
    inserted.order,
    member.openid,
    `${merchant.name} 充值 ${pkg.name}`,
    returnPath,
  );
  return { order: orderSummary(inserted.order), jsapi };
}
