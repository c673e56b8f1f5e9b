/**
 * `POST /backend/user/pay` (member cookie): pay for a device from the wallet or with WeChat Pay. The flow lives in
 * services/orders/pay.ts; this validates, reads `Idempotency-Key` and answers 201 with the order (docs/decisions.md D6).
 * The member's session is resolved by the pay itself (`memberSession()`, docs/decisions.md D31): a wallet pay does it
 * in its first statement.
 */
import { Hono } from 'hono';
import { z } from 'zod';
import { PayRequestSchema } from '../../../src/domain/api';
import type { AppEnv } from '../../context';
import { idempotencyKey } from '../../lib/idempotency-key';
import { parseJson } from '../../lib/validate';
import { memberSession, memberSessionOf, resolveMember } from '../../member/member.middleware';
import { payForDevice, paymentDeps } from '../../services/orders';

const PayBodySchema = PayRequestSchema.extend({ return_path: z.string().max(512).optional() });

export function payRoutes(): Hono<AppEnv> {
  const r = new Hono<AppEnv>();

  r.post('/pay', memberSession(), async (c) => {
    let key: string | undefined;
    let body: z.infer<typeof PayBodySchema>;
    try {
      key = idempotencyKey(c);
      body = await parseJson(c, PayBodySchema);
    } catch (err) {
      await resolveMember(c); // a dead session answers 401 before a bad request, as on every member route
      throw err;
    }
    const { return_path, ...req } = body;
    const res = await payForDevice(paymentDeps(c.var.deps), memberSessionOf(c), req, {
      idempotencyKey: key,
      returnPath: return_path,
    });
    return c.json(res, 201);
  });

  return r;
}
