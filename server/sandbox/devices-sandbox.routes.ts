/**
 * Sandbox control of the device simulator: `POST /backend/sandbox/devices/:id/mode {mode}` makes a simulated
 * device answer normally, refuse, stay silent or go offline (demos and browser tests). It answers 404 unless the
 * server runs the WeChat sandbox with the simulator, so a production server never exposes it.
 */
import { eq } from 'drizzle-orm';
import { Hono } from 'hono';
import { z } from 'zod';
import type { AppDeps, AppEnv } from '../context';
import { devices } from '../db/schema';
import { notFound } from '../lib/errors';
import { parseJson, parseParam } from '../lib/validate';
import { isControllable } from '../services/devices/gateway';

const ModeBody = z.object({ mode: z.enum(['normal', 'refuse', 'silent', 'offline']) });

function sandboxMode(deps: AppDeps): boolean {
  return deps.wechat?.mode === 'sandbox';
}

export function devicesSandboxRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  /** The simulated device `:id` and the gateway steering it; 404 when nothing simulates it. */
  async function simulated(deps: AppDeps, id: number) {
    const gateway = deps.devices?.gateway;
    if (!sandboxMode(deps) || !gateway || !isControllable(gateway)) throw notFound('接口不存在');
    const [d] = await deps.db.select({ serial: devices.serial }).from(devices).where(eq(devices.id, id));
    if (!d) throw notFound('设备不存在');
    // A device staff issued a secret (real hardware), or no simulator running (MQTT_URL): nothing to steer.
    if (gateway.simulates && !gateway.simulates(d.serial)) throw notFound('该设备不由模拟器代管');
    return { gateway, serial: d.serial };
  }

  app.post('/:id/mode', async (c) => {
    const { deps } = c.var;
    const id = parseParam(c, 'id');
    const { mode } = await parseJson(c, ModeBody);
    const { gateway, serial } = await simulated(deps, id);
    await gateway.setMode(serial, mode);
    await deps.devices!.settle();
    return c.json({ device_id: id, serial, mode });
  });

  app.get('/:id/mode', async (c) => {
    const id = parseParam(c, 'id');
    const { gateway, serial } = await simulated(c.var.deps, id);
    return c.json({ device_id: id, serial, mode: gateway.getMode(serial) });
  });

  return app;
}
