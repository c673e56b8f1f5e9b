/**
 * Start hook: builds `deps.wechat` from the environment (live WeChat or the sandbox, see config.ts) unless a test
 * supplied one, and stops the sandbox's notification sender on close.
 */
import type { StartHook } from '../context';
import { createWechat } from './config';

export const wechatStartHook: StartHook = async (deps) => {
  if (deps.wechat) return;
  const wechat = await createWechat(deps.env, { db: deps.db });
  deps.wechat = wechat;
  if (wechat.mode === 'live') console.log('WeChat: live (real credentials configured)');
  return async () => {
    await wechat.sandbox?.stop();
  };
};
