/**
 * `POST /backend/user/pay` (member cookie): pay for a device from the wallet or with WeChat Pay. The flow lives in
 * services/orders/pay.ts; this validates, reads `Idempotency-Key` and answers 201 with the order (docs/decisions.md D6).
 */
import { Hono } from 'hono';
import { z } from 'zod';
import { PayRequestSchema } from '../../../src/domain/api';
import type { AppEnv } from '../../context';
import { idempotencyKey } from '../../lib/idempotency-key';
import { parseJson } from '../../lib/validate';
import { memberOf, requireMember } from '../../member/member.middleware';
import { payForDevice, paymentDeps } from '../../services/orders';

const PayBodySchema = PayRequestSchema.extend({ return_path: z.string().max(512).optional() });

export function payRoutes(): Hono<AppEnv> {
  const r = new Hono<AppEnv>();

  r.post('/pay', requireMember(), async (c) => {
    const memberId = memberOf(c);
    const key = idempotencyKey(c);
    const body = await parseJson(c, PayBodySchema);
    const { return_path, ...req } = body;
    const res = await payForDevice(paymentDeps(c.var.deps), memberId, req, {
      idempotencyKey: key,
      returnPath: return_path,
    });
    return c.json(res, 201);
  });

  return r;
}
