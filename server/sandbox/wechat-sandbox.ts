/**
 * WeChat backed by the built-in sandbox: the PRODUCTION clients (WechatOAuthClient, WechatPayClient) pointed at the
 * sandbox's endpoints over real HTTP, with the sandbox's routes to mount at SANDBOX_MOUNT. `createWechat` picks live
 * or sandbox like a server start does, for tests and tools that build their own deps.
 */
import { WechatOAuthClient } from '../wechat/oauth';
import { WechatPayClient } from '../wechat/pay';
import {
  createLiveWechat,
  wechatMode,
  wechatUrls,
  type CreateWechatOptions,
  type WechatEnv,
} from '../wechat/config';
import type { Wechat } from '../wechat/types';
import { createWechatSandbox, type WechatSandboxOptions } from './index';

export interface SandboxWechatOptions extends CreateWechatOptions {
  /** Sandbox tuning (poll period, retry factor, fixed keys, extra hosts). */
  sandbox?: Partial<Omit<WechatSandboxOptions, 'db' | 'publicUrl' | 'notifyUrl'>>;
}

export async function createSandboxWechat(env: WechatEnv, opts: SandboxWechatOptions): Promise<Wechat> {
  const { publicUrl, notifyUrl, refundNotifyUrl } = wechatUrls(env);
  const factor = Number(opts.sandbox?.retryFactor ?? env.WECHAT_SANDBOX_RETRY_FACTOR ?? 1);
  const sandbox = await createWechatSandbox({
    ...opts.sandbox,
    db: opts.db,
    publicUrl,
    notifyUrl,
    refundNotifyUrl,
    retryFactor: Number.isFinite(factor) && factor > 0 ? factor : 1,
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
    ...(opts.now ? { now: opts.now } : {}),
  });
  // Retries and delayed deliveries need the timer; it is unref'd and stopped by `sandbox.stop()`.
  sandbox.start();
  return {
    mode: 'sandbox',
    oauth: new WechatOAuthClient(sandbox.oauthConfig),
    pay: new WechatPayClient(sandbox.payConfig),
    sandboxRoutes: sandbox.routes,
    sandbox,
  };
}

/** Live WeChat when every credential is configured, otherwise the sandbox where it is allowed (see wechatMode). */
export async function createWechat(env: WechatEnv, opts: SandboxWechatOptions): Promise<Wechat> {
  return wechatMode(env) === 'live' ? createLiveWechat(env, opts) : createSandboxWechat(env, opts);
}
