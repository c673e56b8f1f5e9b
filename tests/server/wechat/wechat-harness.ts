/**
 * The WeChat protocol suites' part of the server test app: `createTestApp(PROTOCOL)` serves the app (the sandbox
 * at /backend/sandbox) on 127.0.0.1 with a recording notification receiver; the production clients
 * (`t.wechat.oauth`, `t.wechat.pay`) talk to the sandbox over loopback HTTP.
 */
import type { TestApp } from '../test-app';

export type { Received } from '../test-app';

/** The protocol suites' options: no demo seed, served on loopback, notifications to the recording receiver. */
export const PROTOCOL = { seed: false, listen: true, wechat: { receiver: true } } as const;
export type ProtocolApp = TestApp<typeof PROTOCOL>;

/** An out_trade_no that is unique per test run. */
export function tradeNo(prefix = 'T'): string {
  return `${prefix}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`.toUpperCase();
}
