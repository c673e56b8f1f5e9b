/**
 * Start hook of the sandboxes: when the environment calls for the WeChat sandbox (wechatMode), builds `deps.wechat`
 * on it; then hands the app the sandboxes' routers to mount (the WeChat sandbox at `/backend/sandbox`, the device
 * simulator's controls at `/backend/sandbox/devices`). Production wiring never imports this folder otherwise.
 */
import type { AppDeps, Mount, StartHook } from '../context';
import { wechatMode } from '../wechat/config';
import { devicesSandboxRoutes } from './devices-sandbox.routes';
import { SANDBOX_MOUNT } from './index';
import { createSandboxWechat } from './wechat-sandbox';

/**
 * The sandbox routers for these deps (test apps built without start hooks call it too). With live WeChat none is
 * mounted: the device controls answer anonymous requests, so they exist only where the WeChat sandbox may.
 */
export function sandboxMounts(deps: AppDeps): Mount[] {
  if (deps.wechat?.mode === 'live') return [];
  const mounts: Mount[] = [{ path: `${SANDBOX_MOUNT}/devices`, routes: devicesSandboxRoutes() }];
  if (deps.wechat?.sandboxRoutes) mounts.push({ path: SANDBOX_MOUNT, routes: deps.wechat.sandboxRoutes });
  return mounts;
}

export const sandboxStartHook: StartHook = async (deps) => {
  let stop: (() => Promise<void>) | undefined;
  if (!deps.wechat && wechatMode(deps.env) === 'sandbox') {
    const wechat = await createSandboxWechat(deps.env, { db: deps.db });
    deps.wechat = wechat;
    stop = async () => {
      await wechat.sandbox?.stop();
    };
  }
  deps.mounts = [...(deps.mounts ?? []), ...sandboxMounts(deps)];
  return stop;
};
