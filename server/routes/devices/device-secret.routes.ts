/**
 * A device's MQTT credentials on its staff page (docs/device-protocol.md, "Credentials"):
 * `GET /backend/merchant/devices/:id/credentials` (serial, broker, whether a secret is set; never the secret) and
 * `POST /backend/merchant/devices/:id/secret` (a new secret, answered once with `Cache-Control: no-store`; only
 * its hash is stored; the audit row records the rotation, not the secret). After the commit the gateway drops the
 * device's connection, so the old secret stops working at once, and the built-in simulator stops standing in for
 * the device (a staff-issued secret is for real hardware). With MQTT_DYNSEC the secret is pushed to the broker
 * then; if that fails the answer is 502 BROKER_SYNC_FAILED without the secret (docs/decisions.md D25).
 */
import { eq } from 'drizzle-orm';
import { Hono } from 'hono';
import type { DeviceCredentials, DeviceSecretIssued } from '../../../src/domain/device-secret.schema';
import { assertOwnMerchant, requireStaff, staffOf } from '../../auth/staff.middleware';
import type { AppDeps, AppEnv, StaffAuth } from '../../context';
import type { Db, Tx } from '../../db/client';
import { devices } from '../../db/schema';
import { HttpError, notFound } from '../../lib/errors';
import { parseParam } from '../../lib/validate';
import { writeAudit } from '../../services/audit';
import { rotateDeviceSecret } from '../../services/devices/device-secrets';
import { DynsecError } from '../../services/devices/mqtt/dynsec.client';

/** Where a device connects: the external broker (without credentials), or the embedded one on PUBLIC_URL's host. */
export function brokerUrlFor(deps: AppDeps): string | null {
  const { env } = deps;
  if (env.MQTT_URL) {
    const u = new URL(env.MQTT_URL);
    return `${u.protocol}//${u.host}`;
  }
  const gw = deps.devices?.gateway as { brokerUrl?: string } | undefined;
  const port = gw?.brokerUrl ? new URL(gw.brokerUrl).port : String(env.MQTT_PORT);
  return `mqtt://${new URL(env.PUBLIC_URL).hostname}:${port}`;
}

async function ownDevice(db: Db | Tx, staff: StaffAuth, id: number, lock = false) {
  const q = db
    .select({
      id: devices.id,
      serial: devices.serial,
      merchant_id: devices.merchant_id,
      has_secret: devices.secret_hash,
      rotated_at: devices.secret_rotated_at,
    })
    .from(devices)
    .where(eq(devices.id, id));
  const [d] = lock ? await q.for('update') : await q;
  if (!d) throw notFound('设备不存在');
  assertOwnMerchant(staff, d.merchant_id, '设备');
  return d;
}

export function deviceSecretRoutes() {
  const r = new Hono<AppEnv>();
  r.use('/:id/credentials', requireStaff('merchant.devices'));
  r.use('/:id/secret', requireStaff('merchant.devices'));

  r.get('/:id/credentials', async (c) => {
    const d = await ownDevice(c.var.deps.db, staffOf(c), parseParam(c, 'id'));
    const body: DeviceCredentials = {
      device_id: d.id,
      serial: d.serial,
      username: d.serial,
      broker_url: brokerUrlFor(c.var.deps),
      has_secret: d.has_secret !== null,
      simulated: c.var.deps.devices?.gateway.simulates?.(d.serial) ?? false,
      rotated_at: d.rotated_at?.toISOString() ?? null,
    };
    return c.json(body);
  });

  r.post('/:id/secret', async (c) => {
    const { deps } = c.var;
    const staff = staffOf(c);
    const id = parseParam(c, 'id');
    const at = deps.now();
    const { d, secret } = await deps.db.transaction(async (tx) => {
      const d = await ownDevice(tx, staff, id, true);
      const secret = await rotateDeviceSecret(tx, d.id, at);
      await writeAudit(tx, staff, {
        action: 'devices.secret_rotate',
        entity: 'devices',
        entity_id: d.id,
        merchant_id: d.merchant_id,
        extra: {
          serial: d.serial,
          had_secret: d.has_secret !== null,
          was_simulated: deps.devices?.gateway.simulates?.(d.serial) ?? false,
        },
      });
      return { d, secret };
    });
    try {
      await deps.devices?.gateway.secretIssued?.(d.serial, secret);
    } catch (err) {
      // The broker's dynamic security did not take the secret (its client is disabled, the old secret refused):
      // the secret is of no use, so it is not shown; staff issue another once the broker is back.
      if (err instanceof DynsecError) {
        console.error(`device ${d.serial}: the new secret did not reach the broker: ${err.message}`);
        throw new HttpError(
          502,
          'BROKER_SYNC_FAILED',
          '新密钥未能同步到 MQTT 服务器，设备暂时无法连接，请稍后重新生成密钥',
        );
      }
      console.error(`device ${d.serial}: dropping the old connection failed:`, (err as Error).message);
    }
    const body: DeviceSecretIssued = {
      device_id: d.id,
      serial: d.serial,
      username: d.serial,
      broker_url: brokerUrlFor(deps),
      has_secret: true,
      simulated: false,
      rotated_at: at.toISOString(),
      secret,
    };
    c.header('Cache-Control', 'no-store');
    return c.json(body);
  });

  return r;
}
