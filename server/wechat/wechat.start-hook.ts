/**
 * Start hook: builds `deps.wechat` with the live clients unless it is already there (a test's, or the sandbox's
 * built by server/sandbox/sandbox.start-hook.ts, which runs first).
 */
import type { StartHook } from '../context';
import { createLiveWechat } from './config';

export const wechatStartHook: StartHook = (deps) => {
  if (deps.wechat) return;
  deps.wechat = createLiveWechat(deps.env, { db: deps.db });
  console.log('WeChat: live (real credentials configured)');
};
