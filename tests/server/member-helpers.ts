/**
 * @deprecated Old names kept for tests written against them (remove once none imports this file): the one server
 * test app is `createTestApp` in ./test-app (`createTestApp(WORLD)` is what `createMemberTestApp()` was), and the
 * sign-in helpers are exported from there.
 */
import type { EnvInput } from '../../server/env';
import type { DevicesForDepsOptions } from '../../server/services/devices/devices.start-hook';
import { createTestApp, type TestWorld } from './test-app';

export { browserOf, signInMember, withCookie } from './test-app.parts';

/** @deprecated use `TestWorld` from ./test-app. */
export type MemberTestApp = TestWorld;

/** @deprecated use `createTestApp({ wechat: true, devices: true, ... })` from ./test-app. */
export function createMemberTestApp(
  opts: { env?: EnvInput; devices?: DevicesForDepsOptions; seed?: boolean } = {},
): Promise<TestWorld> {
  return createTestApp({ ...opts, wechat: true, devices: opts.devices ?? true });
}
