/**
 * Several API instances on one PostgreSQL database, as production runs them behind a load balancer: each is
 * `server/main.ts` (what `npm start` runs) in its own process on its own port. Used by
 * `tests/server/instances.test.ts` and the bench's two-instance section. Also the fixtures both need: online
 * devices and members with money and a member session each, written straight into the database.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../../../server/db/client';
import { devices, members, orders, service_prices } from '../../../server/db/schema';
import { createMemberSession, MEMBER_COOKIE } from '../../../server/member/member-sessions';
import { newOrderNo, settleWechatPayment } from '../../../server/services/orders';
import { SERVER_ARGS } from '../../../scripts/server-command';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export interface Instance {
  name: string;
  url: string;
  child: ChildProcess;
  /** What the process printed (stdout and stderr). */
  output(): string;
  /** SIGTERM and wait for the exit (a graceful stop). */
  stop(): Promise<void>;
  /** SIGKILL and wait for the exit (a crash: nothing is finished or flushed). */
  kill(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Starts `server/main.ts` on `databaseUrl` and resolves once `/backend/health` answers 200. */
export async function startInstance(
  name: string,
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<Instance> {
  const port = await freePort();
  const child = spawn(process.execPath, SERVER_ARGS, {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      // Each instance runs its own embedded broker (and simulator) on a free port.
      MQTT_PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: databaseUrl,
      WECHAT_SANDBOX: 'true',
      SERVE_CLIENT: 'false',
      LOG_REQUESTS: 'false',
      PUBLIC_URL: '',
      NODE_ENV: 'production',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    const ok = await fetch(`${url}/backend/health`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      await end('SIGKILL');
      throw new Error(`instance ${name} did not become healthy:\n${out.slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { name, url, child, output: () => out, stop: () => end('SIGTERM'), kill: () => end('SIGKILL') };
}

export interface PayFixtures {
  deviceIds: number[];
  venueId: number;
  priceId: number;
  priceFen: number;
  /** One `Cookie` header value per member. */
  cookies: string[];
}

/**
 * `deviceCount` online devices in the first demo venue and `memberCount` members, each with a WeChat recharge
 * booked by the money service (enough for `paysPerMember` pays) and a member session.
 */
export async function payFixtures(
  db: Db,
  deviceCount: number,
  memberCount: number,
  paysPerMember: number,
): Promise<PayFixtures> {
  const [d0] = await db.select().from(devices).orderBy(asc(devices.id)).limit(1);
  if (!d0) throw new Error('no demo device');
  const [price] = await db
    .select()
    .from(service_prices)
    .where(and(eq(service_prices.venue_id, d0.venue_id), eq(service_prices.active, true)))
    .orderBy(asc(service_prices.sort))
    .limit(1);
  if (!price) throw new Error('no demo price');
  const now = new Date();
  const tag = randomBytes(3).toString('hex');
  const rows = Array.from({ length: deviceCount }, (_, i) => ({
    merchant_id: d0.merchant_id,
    venue_id: d0.venue_id,
    product_id: d0.product_id,
    name: `多实例设备 ${i + 1}`,
    serial: `MI-${tag}-${i}`,
    last_heartbeat_at: now,
  }));
  const deviceIds: number[] = [];
  for (let i = 0; i < rows.length; i += 500) {
    const ids = await db
      .insert(devices)
      .values(rows.slice(i, i + 500))
      .returning({ id: devices.id });
    deviceIds.push(...ids.map((r) => r.id));
  }
  const cookies: string[] = [];
  for (let m = 0; m < memberCount; m++) {
    const [mem] = await db
      .insert(members)
      .values({ openid: `mi-${tag}-${m}` })
      .returning({ id: members.id });
    await db.transaction(async (tx) => {
      const [o] = await tx
        .insert(orders)
        .values({
          order_no: newOrderNo('recharge'),
          kind: 'recharge',
          method: 'wechat',
          status: 'pending',
          member_id: mem!.id,
          merchant_id: d0.merchant_id,
          amount_fen: paysPerMember * price.price_fen,
        })
        .returning();
      await settleWechatPayment(tx, o!, { transaction_id: `mi-${tag}-${o!.id}`, now });
    });
    cookies.push(`${MEMBER_COOKIE}=${await createMemberSession(db, mem!.id, now)}`);
  }
  return { deviceIds, venueId: d0.venue_id, priceId: price.id, priceFen: price.price_fen, cookies };
}

/** A wallet pay on `deviceId` through the instance at `base`, as a request to send (the bench sends these too). */
export function walletPayRequest(
  base: string,
  fx: PayFixtures,
  deviceId: number,
  cookie: string,
  key: string,
) {
  return {
    url: `${base}/backend/user/pay`,
    method: 'POST' as const,
    headers: { 'content-type': 'application/json', cookie, 'Idempotency-Key': key },
    body: JSON.stringify({
      device_id: deviceId,
      venue_id: fx.venueId,
      price_id: fx.priceId,
      method: 'wallet',
    }),
  };
}

/** One wallet pay through `base`: the status (0 when the connection failed) and the order number when created. */
export async function walletPay(
  base: string,
  fx: PayFixtures,
  deviceId: number,
  cookie: string,
  key: string,
): Promise<{ status: number; order_no?: string; code?: string }> {
  try {
    const { url, ...init } = walletPayRequest(base, fx, deviceId, cookie, key);
    const res = await fetch(url, init);
    const body = (await res.json()) as { order?: { order_no: string }; code?: string };
    return { status: res.status, order_no: body.order?.order_no, code: body.code };
  } catch {
    return { status: 0 };
  }
}
