/**
 * The WeChat protocol suites' part of the server test app: `createTestApp(PROTOCOL)` serves the app (the sandbox
 * at /backend/sandbox) on 127.0.0.1 with a recording notification receiver; the production clients
 * (`t.wechat.oauth`, `t.wechat.pay`) talk to the sandbox over loopback HTTP.
 */
import type { WechatOAuthClient } from '../../server/wechat/oauth';
import type { WechatPayClient } from '../../server/wechat/pay';
import { createTestApp, type TestApp, type WechatTestOptions } from './test-app';

export type { Received } from './test-app';

/** The protocol suites' options: no demo seed, served on loopback, notifications to the recording receiver. */
export const PROTOCOL = { seed: false, listen: true, wechat: { receiver: true } } as const;
export type ProtocolApp = TestApp<typeof PROTOCOL>;

/** An out_trade_no that is unique per test run. */
export function tradeNo(prefix = 'T'): string {
  return `${prefix}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`.toUpperCase();
}

/** @deprecated use `ProtocolApp`. */
export type Harness = ProtocolApp & { oauth: WechatOAuthClient; pay: WechatPayClient };

/**
 * @deprecated use `createTestApp({ ...PROTOCOL, wechat: { receiver: true, ...sandbox options } })` (kept for tests
 * written against this name).
 */
export async function startHarness(opts: Omit<WechatTestOptions, 'receiver'> = {}): Promise<Harness> {
  const t = await createTestApp({ ...PROTOCOL, wechat: { ...opts, receiver: true } });
  return Object.assign(t, { oauth: t.wechat.oauth, pay: t.wechat.pay });
}
