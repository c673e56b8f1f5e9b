/**
 * Production wiring of WeChat: decides live or sandbox from the environment (`wechatMode`) and builds the live
 * clients (`createLiveWechat`). Live mode needs every credential variable; with none of them set the sandbox runs
 * with the embedded DB and a loopback PUBLIC_URL, or anywhere else only when WECHAT_SANDBOX=true. A partial set is a
 * start-up error, because silently falling back to the sandbox in production would take no real money. The sandbox
 * itself is built and mounted by its own start hook (server/sandbox/sandbox.start-hook.ts); nothing here imports it.
 */
import fs from 'node:fs';
import type { Db } from '../db/client';
import { WechatOAuthClient } from './oauth';
import { WechatPayClient } from './pay';
import type { FetchLike, Wechat } from './types';

/** Where the payment service receives WeChat Pay notifications (relative to PUBLIC_URL unless WECHAT_NOTIFY_URL). */
export const PAY_NOTIFY_PATH = '/backend/wechat/pay/notify';
export const REFUND_NOTIFY_PATH = '/backend/wechat/pay/refund-notify';

/** The variables read here (all optional; see docs/wechat.md). */
export interface WechatEnv {
  PUBLIC_URL: string;
  /** With a PostgreSQL server the sandbox is off unless WECHAT_SANDBOX says otherwise. */
  DATABASE_URL?: string | undefined;
  /** Explicit sandbox switch; default: on with the embedded DB and a loopback PUBLIC_URL, off otherwise. */
  WECHAT_SANDBOX?: boolean | undefined;
  WECHAT_APPID?: string | undefined;
  WECHAT_SECRET?: string | undefined;
  WECHAT_MCHID?: string | undefined;
  WECHAT_MCH_SERIAL?: string | undefined;
  /** PEM text (literal `\n` allowed) or a path to apiclient_key.pem. */
  WECHAT_MCH_PRIVATE_KEY?: string | undefined;
  WECHAT_APIV3_KEY?: string | undefined;
  /** 微信支付公钥 (PEM text or path) or a platform certificate's public key. */
  WECHAT_PLATFORM_PUBLIC_KEY?: string | undefined;
  /** Its id (`PUB_KEY_ID_…`) or the platform certificate serial: the `Wechatpay-Serial` WeChat sends. */
  WECHAT_PLATFORM_PUBLIC_KEY_ID?: string | undefined;
  /** Optional second key and its id (a rotation: both are trusted; docs/wechat.md "Platform keys and rotation"). */
  WECHAT_PLATFORM_PUBLIC_KEY_2?: string | undefined;
  WECHAT_PLATFORM_PUBLIC_KEY_ID_2?: string | undefined;
  WECHAT_NOTIFY_URL?: string | undefined;
  WECHAT_REFUND_NOTIFY_URL?: string | undefined;
  WECHAT_OAUTH_AUTHORIZE_BASE?: string | undefined;
  WECHAT_API_BASE?: string | undefined;
  WECHAT_PAY_API_BASE?: string | undefined;
  /** Sandbox only: compresses the notification retry schedule (e.g. 0.001). */
  WECHAT_SANDBOX_RETRY_FACTOR?: string | number | undefined;
}

const LIVE_VARS = [
  'WECHAT_APPID',
  'WECHAT_SECRET',
  'WECHAT_MCHID',
  'WECHAT_MCH_SERIAL',
  'WECHAT_MCH_PRIVATE_KEY',
  'WECHAT_APIV3_KEY',
  'WECHAT_PLATFORM_PUBLIC_KEY',
  'WECHAT_PLATFORM_PUBLIC_KEY_ID',
] as const;

export interface CreateWechatOptions {
  db: Db;
  /** For the clients and the sandbox's notification sender (tests: an in-process `app.request`). */
  fetch?: FetchLike;
  now?: () => number;
}

/** PEM given inline (with real or `\n`-escaped newlines) or as a file path. */
function pem(value: string, name: string): string {
  if (value.includes('-----BEGIN')) return value.replace(/\\n/g, '\n');
  try {
    return fs.readFileSync(value, 'utf8');
  } catch {
    throw new Error(`${name} 既不是 PEM 文本，也不是可读取的文件路径：${value}`);
  }
}

/** True when the URL's host is this machine only (localhost, 127.0.0.0/8, ::1). */
export function isLoopbackUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return false;
  }
  return host === 'localhost' || host === '[::1]' || /^127(?:\.\d{1,3}){3}$/.test(host);
}

/** The URLs WeChat Pay calls back (read on use: a server on port 0 learns its PUBLIC_URL only once it listens). */
export function wechatUrls(env: WechatEnv) {
  const publicUrl = () => env.PUBLIC_URL.replace(/\/+$/, '');
  return {
    publicUrl,
    notifyUrl: () => env.WECHAT_NOTIFY_URL || `${publicUrl()}${PAY_NOTIFY_PATH}`,
    // WeChat refunds report their result here (docs/money.md "WeChat refunds").
    refundNotifyUrl: () => env.WECHAT_REFUND_NOTIFY_URL || `${publicUrl()}${REFUND_NOTIFY_PATH}`,
  };
}

/**
 * Live when every credential is configured, the sandbox when none is and it is allowed here; throws (a start-up
 * error) on a partial configuration or a sandbox that would face the internet without WECHAT_SANDBOX=true.
 */
export function wechatMode(env: WechatEnv): 'live' | 'sandbox' {
  const set = LIVE_VARS.filter((k) => env[k]);
  if (set.length > 0 && set.length < LIVE_VARS.length) {
    const missing = LIVE_VARS.filter((k) => !env[k]);
    throw new Error(
      `微信配置不完整：已设置 ${set.join(', ')}，还缺少 ${missing.join(', ')}（全部不设置则使用沙箱）`,
    );
  }
  if (set.length === LIVE_VARS.length) return 'live';
  // The sandbox's cashier marks orders paid without real money: never let a deployment that merely forgot its
  // credentials fall into it. By default it runs only for a laptop (embedded DB, PUBLIC_URL on loopback).
  const loopback = isLoopbackUrl(env.PUBLIC_URL);
  const sandboxOn = env.WECHAT_SANDBOX ?? (!env.DATABASE_URL && loopback);
  if (!sandboxOn) {
    const why = env.DATABASE_URL
      ? '已设置 DATABASE_URL（PostgreSQL 部署）'
      : `PUBLIC_URL（${env.PUBLIC_URL}）不是本机回环地址，沙箱收银台会让任何人免费充值`;
    throw new Error(
      `未配置微信凭据，且${why}：请设置 ${LIVE_VARS.join(', ')} 以使用真实微信；` +
        '仅在测试环境中如需沙箱，请设置 WECHAT_SANDBOX=true',
    );
  }
  return 'sandbox';
}

/** The configured platform keys by id, in the configured order (the second pair is optional, both or neither). */
function platformKeysOf(env: WechatEnv): Record<string, string> {
  const keys = {
    [env.WECHAT_PLATFORM_PUBLIC_KEY_ID!]: pem(env.WECHAT_PLATFORM_PUBLIC_KEY!, 'WECHAT_PLATFORM_PUBLIC_KEY'),
  };
  const [second, id] = [env.WECHAT_PLATFORM_PUBLIC_KEY_2, env.WECHAT_PLATFORM_PUBLIC_KEY_ID_2];
  if (!second !== !id) {
    throw new Error('WECHAT_PLATFORM_PUBLIC_KEY_2 与 WECHAT_PLATFORM_PUBLIC_KEY_ID_2 须同时设置或同时不设置');
  }
  if (second && id) keys[id] = pem(second, 'WECHAT_PLATFORM_PUBLIC_KEY_2');
  return keys;
}

/** The live clients (every credential configured; `wechatMode` said 'live'). */
export function createLiveWechat(env: WechatEnv, opts: CreateWechatOptions): Wechat {
  if (wechatMode(env) !== 'live') throw new Error('createLiveWechat: WeChat credentials are not configured');
  const { notifyUrl, refundNotifyUrl } = wechatUrls(env);
  const apiV3Key = env.WECHAT_APIV3_KEY!;
  if (Buffer.byteLength(apiV3Key, 'utf8') !== 32) throw new Error('WECHAT_APIV3_KEY 必须是 32 个字符');
  for (const [name, url] of [
    ['WECHAT_NOTIFY_URL', notifyUrl()],
    ['WECHAT_REFUND_NOTIFY_URL', refundNotifyUrl()],
  ] as const) {
    if (!url) continue;
    const u = new URL(url);
    if (u.protocol !== 'https:' || u.search) {
      throw new Error(`${name}（${url}）必须是公网可访问的 https 地址，且不能带查询参数`);
    }
  }
  const oauth = new WechatOAuthClient({
    appid: env.WECHAT_APPID!,
    secret: env.WECHAT_SECRET!,
    authorizeBase: env.WECHAT_OAUTH_AUTHORIZE_BASE || 'https://open.weixin.qq.com',
    apiBase: env.WECHAT_API_BASE || 'https://api.weixin.qq.com',
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  });
  const pay = new WechatPayClient({
    appid: env.WECHAT_APPID!,
    mchid: env.WECHAT_MCHID!,
    merchantSerialNo: env.WECHAT_MCH_SERIAL!,
    merchantPrivateKey: pem(env.WECHAT_MCH_PRIVATE_KEY!, 'WECHAT_MCH_PRIVATE_KEY'),
    apiV3Key,
    platformPublicKeys: platformKeysOf(env),
    apiBase: env.WECHAT_PAY_API_BASE || 'https://api.mch.weixin.qq.com',
    notifyUrl: notifyUrl(),
    refundNotifyUrl: refundNotifyUrl(),
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
    ...(opts.now ? { now: opts.now } : {}),
  });
  return { mode: 'live', oauth, pay };
}
