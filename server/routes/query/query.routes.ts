/**
 * GET /backend/api/query?order_no=: public order status for the pay page's polling (no sign-in: the order number is
 * long and random, and the answer shows only kind, status and amount). A pending WeChat order is checked with
 * WeChat's order query so a late notification does not keep the member waiting.
 */
import { Hono } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../../context';
import { parseQuery } from '../../lib/validate';
import { queryOrder } from '../../services/orders';
import { paymentDeps } from '../../services/orders';

const QuerySchema = z.object({
  order_no: z.string({ error: '请提供订单号' }).regex(/^[0-9A-Za-z_-]{6,32}$/, '订单号格式有误'),
});

export function queryRoutes(): Hono<AppEnv> {
  const r = new Hono<AppEnv>();
  r.get('/', async (c) => {
    const { order_no } = parseQuery(c, QuerySchema);
    return c.json(await queryOrder(paymentDeps(c.var.deps), order_no));
  });
  return r;
}
