/**
 * `POST /backend/merchant/devices/:id/start { price_id, mode, reason? }` and `POST /backend/merchant/devices/:id/stop`:
 * remote start (cash or free service) and stop by staff, mounted beside the devices resource. Scoped by the token's
 * merchant (another merchant's device answers 404); the flows are in remote-start.ts.
 */
import { Hono } from 'hono';
import { RemoteStartRequestSchema } from '../../../src/domain/device-control.schema';
import { staffOf } from '../../auth/staff.middleware';
import type { AppEnv } from '../../context';
import { parseJson, parseParam } from '../../lib/validate';
import { requiredIdempotencyKey } from '../../lib/idempotency-key';
import { requireAnyFeature } from '../employee/staff-scope';
import { remoteStart, remoteStop } from './remote-start';

export function deviceControlRoutes() {
  const r = new Hono<AppEnv>();

  r.post('/:id/start', requireAnyFeature('employee.remoteStart', 'merchant.devices'), async (c) => {
    const staff = staffOf(c);
    const id = parseParam(c, 'id');
    const key = requiredIdempotencyKey(c);
    const input = await parseJson(c, RemoteStartRequestSchema);
    const { status, body } = await remoteStart(c.var.deps, staff, id, input, key);
    return c.json(body, status);
  });

  r.post(
    '/:id/stop',
    requireAnyFeature('employee.deviceCharging', 'employee.remoteStart', 'merchant.devices'),
    async (c) => {
      const staff = staffOf(c);
      const id = parseParam(c, 'id');
      return c.json(await remoteStop(c.var.deps, staff, id));
    },
  );

  return r;
}
