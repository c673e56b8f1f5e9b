/**
 * The WeChat sandboxes, assembled: OAuth at `/backend/sandbox/wechat`, Pay v3 and the cashier at
 * `/backend/sandbox/wechatpay`. Returns the routes (mount them at SANDBOX_MOUNT) and the configurations with which
 * the PRODUCTION clients (WechatOAuthClient, WechatPayClient) talk to the sandbox over real HTTP.
 */
import { Hono } from 'hono';
import type { Db } from '../db/client';
import type {
  FetchLike,
  JsapiPayParams,
  SandboxNotifyOptions,
  Transaction,
  WechatOAuthConfig,
  WechatPayConfig,
  WechatSandboxHandle,
} from '../wechat/types';
import type { SandboxContext } from './context';
import { generatePlatformKey, loadSandboxKeys, platformKeysOf, type SandboxKeys } from './keys';
import { NotificationSender } from './notifier';
import { oauthSandboxRoutes } from './oauth.sandbox';
import { SandboxPayService } from './pay.sandbox';
import { setRefundOutcome } from './pay-refund.sandbox';
import { paySandboxRoutes } from './pay-routes.sandbox';

/** Where the app mounts `routes`. */
export const SANDBOX_MOUNT = '/backend/sandbox';
export const OAUTH_SANDBOX_PATH = `${SANDBOX_MOUNT}/wechat`;
export const PAY_SANDBOX_PATH = `${SANDBOX_MOUNT}/wechatpay`;

export interface WechatSandboxOptions {
  /**
   * The app's public origin (`PUBLIC_URL`): base of the sandbox URLs; its host is the 网页授权域名. A function is
   * read on every use, for a server that learns its port only after listening.
   */
  publicUrl: string | (() => string);
  db: Db;
  /** Payment notify URL given to prepay (absolute, no query); a function is read on every use. */
  notifyUrl: string | (() => string);
  refundNotifyUrl?: string | (() => string);
  /** Clock in ms (tests move it to expire codes). */
  now?: () => number;
  /** Used by the clients and by the notification sender (tests may pass an in-process `app.request`). */
  fetch?: FetchLike;
  /** Compresses WeChat's retry schedule (default 1 = real time). */
  retryFactor?: number;
  /** Queue polling period in ms (default 1000). */
  pollMs?: number;
  /** How long the receiver may take before a delivery counts as failed (default 5000, as WeChat). */
  receiverTimeoutMs?: number;
  /** Extra hostnames accepted in redirect_uri besides the publicUrl's. */
  allowedHosts?: string[];
  /** Fixed credentials (default: generated once and kept in the DB). */
  keys?: SandboxKeys;
}

export interface WechatSandbox extends WechatSandboxHandle {
  /** Mount at SANDBOX_MOUNT. */
  routes: Hono;
  keys: SandboxKeys;
  oauthConfig: WechatOAuthConfig;
  payConfig: WechatPayConfig;
  payService: SandboxPayService;
  /** Starts the notification delivery timer. */
  start(): void;
  /**
   * Tests: WeChat adds a new platform key (in memory only); the pay client is configured with it after the others
   * and WeChat reads sensitive fields encrypted with any of them. Returns the new key's serial.
   */
  rotatePlatformKey(): Promise<string>;
}

/** Builds the sandboxes on the given DB (credentials are loaded or generated there). */
export async function createWechatSandbox(opts: WechatSandboxOptions): Promise<WechatSandbox> {
  const publicUrlOf = lazy(opts.publicUrl);
  const publicUrl = () => publicUrlOf().replace(/\/+$/, '');
  const keys = opts.keys ?? (await loadSandboxKeys(opts.db));
  const now = opts.now ?? Date.now;
  const fetch: FetchLike = opts.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const sender = new NotificationSender({
    db: opts.db,
    keys,
    fetch,
    now,
    retryFactor: opts.retryFactor ?? 1,
    pollMs: opts.pollMs ?? 1000,
    ...(opts.receiverTimeoutMs ? { receiverTimeoutMs: opts.receiverTimeoutMs } : {}),
  });
  const ctx: SandboxContext = {
    db: opts.db,
    keys,
    now,
    publicUrl,
    allowedHosts: () => [new URL(publicUrl()).hostname, ...(opts.allowedHosts ?? [])],
    sender,
  };
  const payService = new SandboxPayService(ctx);
  const routes = new Hono();
  routes.route('/wechat', oauthSandboxRoutes(ctx));
  routes.route('/wechatpay', paySandboxRoutes(ctx, payService));

  return {
    routes,
    keys,
    payService,
    oauthConfig: oauthConfigOf(keys, publicUrl, fetch),
    payConfig: payConfigOf(opts, keys, publicUrl, fetch, now),
    ...testHandle(ctx, payService, sender),
    start: () => sender.start(),
    stop: () => sender.stop(),
    rotatePlatformKey: async () => {
      const next = await generatePlatformKey();
      keys.newerPlatform = [...(keys.newerPlatform ?? []), next];
      return next.serial;
    },
  };
}

const lazy = (v: string | (() => string)) => (typeof v === 'function' ? v : () => v);

/** The production OAuth client's configuration pointed at the sandbox (getters: read on every call). */
function oauthConfigOf(keys: SandboxKeys, publicUrl: () => string, fetch: FetchLike): WechatOAuthConfig {
  return {
    appid: keys.appid,
    secret: keys.secret,
    get authorizeBase() {
      return `${publicUrl()}${OAUTH_SANDBOX_PATH}`;
    },
    get apiBase() {
      return `${publicUrl()}${OAUTH_SANDBOX_PATH}`;
    },
    fetch,
    sandbox: true,
  };
}

/** The production Pay client's configuration pointed at the sandbox (getters: read on every call). */
function payConfigOf(
  opts: WechatSandboxOptions,
  keys: SandboxKeys,
  publicUrl: () => string,
  fetch: FetchLike,
  now: () => number,
): WechatPayConfig {
  const notifyUrl = lazy(opts.notifyUrl);
  const refundNotifyUrl = opts.refundNotifyUrl === undefined ? undefined : lazy(opts.refundNotifyUrl);
  return {
    appid: keys.appid,
    mchid: keys.mchid,
    merchantSerialNo: keys.merchantSerialNo,
    merchantPrivateKey: keys.merchantPrivateKey,
    apiV3Key: keys.apiV3Key,
    // Read on every use: a rotation (`rotatePlatformKey`) configures the new key after the others.
    get platformPublicKeys() {
      return Object.fromEntries(platformKeysOf(keys).map((k) => [k.serial, k.publicKey]));
    },
    get apiBase() {
      return `${publicUrl()}${PAY_SANDBOX_PATH}`;
    },
    get notifyUrl() {
      return notifyUrl();
    },
    ...(refundNotifyUrl
      ? {
          get refundNotifyUrl() {
            return refundNotifyUrl();
          },
        }
      : {}),
    fetch,
    now,
  };
}

/** What the app and the tests ask of the sandbox itself: the cashier, confirming, refund outcomes, notifications. */
function testHandle(
  ctx: SandboxContext,
  payService: SandboxPayService,
  sender: NotificationSender,
): Omit<WechatSandboxHandle, 'stop'> {
  return {
    cashierUrl(params: JsapiPayParams, returnPath: string): string {
      // Relative: the cashier is served by this same origin, whatever host the phone used.
      const q = new URLSearchParams({ ...params, return: returnPath });
      return `${PAY_SANDBOX_PATH}/cashier?${q.toString()}`;
    },
    confirmPayment(prepayId: string, o?: SandboxNotifyOptions): Promise<Transaction> {
      return payService.confirm(prepayId, o);
    },
    setRefundOutcome: (outTradeNo, outcome) => setRefundOutcome(ctx, outTradeNo, outcome),
    drainNotifications: (timeoutMs?: number) => sender.drain(timeoutMs),
    signedNotification(transaction, o = {}) {
      const env = sender.envelope(
        transaction,
        o.eventType ?? 'TRANSACTION.SUCCESS',
        'transaction',
        '支付成功',
      );
      return sender.sign(JSON.stringify(env), o.signature ?? 'valid', o.timestampOffsetS ?? 0);
    },
    signBody: (body, o = {}) => sender.sign(body, o.signature ?? 'valid', o.timestampOffsetS ?? 0),
  };
}

export type { SandboxKeys } from './keys';
export { generateSandboxKeys } from './keys';
