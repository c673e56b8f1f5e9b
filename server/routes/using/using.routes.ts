/**
 * The member's running sessions and the stop button (docs/decisions.md D6): `GET /backend/user/using` lists the member's
 * starting and running sessions with the server's clock (so the countdown does not trust the phone's clock);
 * `POST /backend/user/using/:order_no/stop` ends the member's own running session early and refunds the unused
 * time pro rata to the wallet. Mounted at `/backend/user/using`, behind the member cookie.
 */
import { and, desc, eq, inArray } from 'drizzle-orm';
import { Hono } from 'hono';
import type { StopResponse } from '../../../src/domain/api';
import { toUsingSession, usingSessionColumns } from '../../services/orders';
import type { AppDeps, AppEnv } from '../../context';
import { device_sessions, devices, orders } from '../../db/schema';
import { HttpError, conflict, notFound, validationFailed } from '../../lib/errors';
import { memberOf, requireMember } from '../../member/member.middleware';
import { ACTIVE_SESSION_STATUSES } from '../../services/devices/sessions';
import type { DevicesService } from '../../services/devices/devices.service';

const ORDER_NO = /^[A-Za-z0-9_-]{1,64}$/;

function devicesOf(deps: AppDeps): DevicesService {
  if (!deps.devices) throw new HttpError(503, 'DEVICES_UNAVAILABLE', '设备服务暂不可用，请稍后再试');
  return deps.devices;
}

export function usingRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use('*', requireMember());

  app.get('/', async (c) => {
    const member_id = memberOf(c);
    const { db, now } = c.var.deps;
    const rows = await db
      .select(usingSessionColumns)
      .from(device_sessions)
      .innerJoin(orders, eq(orders.id, device_sessions.order_id))
      .innerJoin(devices, eq(devices.id, device_sessions.device_id))
      .where(
        and(
          eq(device_sessions.member_id, member_id),
          inArray(device_sessions.status, ACTIVE_SESSION_STATUSES),
        ),
      )
      .orderBy(desc(device_sessions.id));
    return c.json({ items: rows.map(toUsingSession), server_time: now().toISOString() });
  });

  app.post('/:order_no/stop', async (c) => {
    const member_id = memberOf(c);
    const orderNo = c.req.param('order_no');
    if (!ORDER_NO.test(orderNo)) throw validationFailed({ order_no: '订单号格式不正确' }, '路径参数有误');
    const { db } = c.var.deps;
    const find = async () => {
      const [r] = await db
        .select(usingSessionColumns)
        .from(device_sessions)
        .innerJoin(orders, eq(orders.id, device_sessions.order_id))
        .innerJoin(devices, eq(devices.id, device_sessions.device_id))
        .where(and(eq(orders.order_no, orderNo), eq(device_sessions.member_id, member_id)));
      return r;
    };
    const row = await find();
    // Another member's order answers like a missing one: order numbers must not be probed.
    if (!row) throw notFound('订单不存在');
    if (row.status !== 'running') throw conflict('SESSION_NOT_RUNNING', '设备不在运行中，无法结束使用');
    const stopped = await devicesOf(c.var.deps).stop(row.session_id);
    if (!stopped) throw conflict('SESSION_NOT_RUNNING', '设备不在运行中，无法结束使用');
    const after = (await find())!;
    const [paidBy] = await db
      .select({ method: orders.method })
      .from(orders)
      .where(eq(orders.order_no, orderNo));
    const body: StopResponse = {
      ...toUsingSession(after),
      refund_fen: after.refund_fen,
      // A WeChat pay's refund goes back to WeChat through the outbox (docs/money.md "WeChat refunds").
      refund_to: paidBy?.method === 'wechat' ? 'wechat' : 'wallet',
    };
    return c.json(body);
  });

  return app;
}
