/** The sandboxes' routers are mounted only where the WeChat sandbox may run, never beside live WeChat. */
import { describe, expect, it } from 'vitest';
import type { AppDeps } from '../../../server/context';
import { sandboxMounts } from '../../../server/sandbox/sandbox.start-hook';
import type { Wechat } from '../../../server/wechat/types';

const deps = (wechat?: Partial<Wechat>) => ({ wechat }) as unknown as AppDeps;

describe('sandbox mounts', () => {
  it('with live WeChat: no device controls and no WeChat sandbox', () => {
    expect(sandboxMounts(deps({ mode: 'live' }))).toEqual([]);
  });

  it('without WeChat (a test app) or with the sandbox: the device controls, and the WeChat sandbox when built', () => {
    expect(sandboxMounts(deps()).map((m) => m.path)).toEqual(['/backend/sandbox/devices']);
    const routes = {} as Wechat['sandboxRoutes'];
    expect(sandboxMounts(deps({ mode: 'sandbox', sandboxRoutes: routes })).map((m) => m.path)).toEqual([
      '/backend/sandbox/devices',
      '/backend/sandbox',
    ]);
  });
});
