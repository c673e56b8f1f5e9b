/**
 * Test harness for the WeChat suites: a real HTTP server on 127.0.0.1 serving the sandbox routes (at
 * /backend/sandbox, as the app mounts them) and a notification receiver, over a fresh test DB; the production
 * clients are built from the sandbox's configuration and talk to it over loopback HTTP.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import type { Database } from '../../server/db/client';
import { createWechatSandbox, SANDBOX_MOUNT, type WechatSandbox } from '../../server/sandbox/index';
import { WechatOAuthClient } from '../../server/wechat/oauth';
import { WechatPayClient } from '../../server/wechat/pay';
import { createTestDb } from './test-db';

export interface Received {
  at: number;
  body: string;
  headers: Headers;
}

export interface Harness {
  database: Database;
  publicUrl: string;
  sandbox: WechatSandbox;
  oauth: WechatOAuthClient;
  pay: WechatPayClient;
  /** Notifications that reached POST /notify. */
  received: Received[];
  /** Decides the receiver's answer for each delivery (default 200). */
  receiverStatus: (n: Received, index: number) => number;
  /** The receiver answers this late (ms). */
  receiverDelayMs: number;
  close(): Promise<void>;
}

export async function startHarness(
  opts: { now?: () => number; retryFactor?: number; pollMs?: number; receiverTimeoutMs?: number } = {},
): Promise<Harness> {
  const database = await createTestDb();
  const app = new Hono();
  const server = serve({ fetch: (req) => app.fetch(req), port: 0, hostname: '127.0.0.1' });
  if (!server.listening) await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  const publicUrl = `http://127.0.0.1:${port}`;

  const h = {
    database,
    publicUrl,
    received: [] as Received[],
    receiverStatus: (() => 200) as Harness['receiverStatus'],
    receiverDelayMs: 0,
  };
  app.post('/notify', async (c) => {
    const n = { at: Date.now(), body: await c.req.text(), headers: c.req.raw.headers };
    const status = h.receiverStatus(n, h.received.length);
    h.received.push(n);
    if (h.receiverDelayMs > 0) await new Promise((r) => setTimeout(r, h.receiverDelayMs));
    return status === 204
      ? c.body(null, 204)
      : c.json(status < 300 ? {} : { code: 'FAIL', message: '失败' }, status as 200);
  });
  const sandbox = await createWechatSandbox({
    publicUrl,
    db: database.db,
    notifyUrl: `${publicUrl}/notify`,
    refundNotifyUrl: `${publicUrl}/notify`,
    retryFactor: opts.retryFactor ?? 0.001,
    pollMs: opts.pollMs ?? 10,
    ...(opts.receiverTimeoutMs ? { receiverTimeoutMs: opts.receiverTimeoutMs } : {}),
    ...(opts.now ? { now: opts.now } : {}),
  });
  app.route(SANDBOX_MOUNT, sandbox.routes);
  sandbox.start();

  return Object.assign(h, {
    sandbox,
    oauth: new WechatOAuthClient(sandbox.oauthConfig),
    pay: new WechatPayClient(sandbox.payConfig),
    async close() {
      await sandbox.stop();
      server.close();
      await database.close();
    },
  });
}

/** An out_trade_no that is unique per test run. */
export function tradeNo(prefix = 'T'): string {
  return `${prefix}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`.toUpperCase();
}
