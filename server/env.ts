/**
 * Configuration from the environment, validated once at start-up. A bad value stops the process with a message that
 * names every offending variable, instead of failing later on the first request that needs it.
 * Other parts add their own variables (WECHAT_APPID, ...) to `EnvSchema` below; keep them optional with defaults so
 * that `npm start` works with no configuration at all.
 */
import { z } from 'zod';

const bool = (fallback: boolean) =>
  z
    .union([z.boolean(), z.enum(['1', '0', 'true', 'false', 'yes', 'no', ''])])
    .optional()
    .transform((v) =>
      v === undefined || v === '' ? fallback : v === true || v === '1' || v === 'true' || v === 'yes',
    );

const emptyToUndefined = (v: unknown) => (v === '' ? undefined : v);

export const EnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce
    .number()
    .int()
    .min(0, 'PORT 必须是 0 到 65535 的整数')
    .max(65535, 'PORT 必须是 0 到 65535 的整数')
    .default(8080),
  /** Interface to listen on; 0.0.0.0 so a phone on the LAN can open the pay links. */
  HOST: z.string().min(1).default('0.0.0.0'),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'DATABASE_URL 必须以 postgres:// 或 postgresql:// 开头')
      .optional(),
  ),
  /** node-postgres connections per instance: at least the requests one instance has in flight (docs/performance.md). */
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(500).optional(),
  /** Named prepared statements on PostgreSQL (server/db/pg-prepared.ts); off behind a pooler that cannot keep them. */
  DATABASE_PREPARED: bool(true),
  SEED: z.enum(['demo', 'none']).default('demo'),
  TZ: z.string().min(1).default('Asia/Shanghai'),
  PUBLIC_URL: z.preprocess(emptyToUndefined, z.url('PUBLIC_URL 必须是完整的网址').optional()),
  SERVE_CLIENT: bool(true),
  TOKEN_TTL_HOURS: z.coerce
    .number()
    .positive()
    .max(24 * 365)
    .default(24 * 7),
  /**
   * Behind a load balancer / reverse proxy: take the client address for the sign-in limiter from the last
   * X-Forwarded-For entry (the one our proxy added). Off by default, because anyone can send that header.
   */
  TRUST_PROXY: bool(false),
  /** Quiet the per-request log line (tests). */
  LOG_REQUESTS: bool(true),
  // ---- WeChat (docs/wechat.md): every credential set = live WeChat; none = the built-in sandbox.
  WECHAT_APPID: z.preprocess(emptyToUndefined, z.string().optional()),
  WECHAT_SECRET: z.preprocess(emptyToUndefined, z.string().optional()),
  WECHAT_MCHID: z.preprocess(emptyToUndefined, z.string().optional()),
  WECHAT_MCH_SERIAL: z.preprocess(emptyToUndefined, z.string().optional()),
  /** PEM text (literal \n allowed) or the path of apiclient_key.pem. */
  WECHAT_MCH_PRIVATE_KEY: z.preprocess(emptyToUndefined, z.string().optional()),
  WECHAT_APIV3_KEY: z.preprocess(
    emptyToUndefined,
    z.string().length(32, 'WECHAT_APIV3_KEY 必须是 32 个字符').optional(),
  ),
  /** 微信支付公钥 (PEM text or path) and its id (PUB_KEY_ID_…) or a platform certificate's serial. */
  WECHAT_PLATFORM_PUBLIC_KEY: z.preprocess(emptyToUndefined, z.string().optional()),
  WECHAT_PLATFORM_PUBLIC_KEY_ID: z.preprocess(emptyToUndefined, z.string().optional()),
  /** Optional second platform key and id, during a rotation (docs/wechat.md "Platform keys and rotation"). */
  WECHAT_PLATFORM_PUBLIC_KEY_2: z.preprocess(emptyToUndefined, z.string().optional()),
  WECHAT_PLATFORM_PUBLIC_KEY_ID_2: z.preprocess(emptyToUndefined, z.string().optional()),
  WECHAT_NOTIFY_URL: z.preprocess(emptyToUndefined, z.url('WECHAT_NOTIFY_URL 必须是完整的网址').optional()),
  WECHAT_REFUND_NOTIFY_URL: z.preprocess(
    emptyToUndefined,
    z.url('WECHAT_REFUND_NOTIFY_URL 必须是完整的网址').optional(),
  ),
  WECHAT_OAUTH_AUTHORIZE_BASE: z.preprocess(emptyToUndefined, z.url().optional()),
  WECHAT_API_BASE: z.preprocess(emptyToUndefined, z.url().optional()),
  WECHAT_PAY_API_BASE: z.preprocess(emptyToUndefined, z.url().optional()),
  /** Sandbox only: multiplies WeChat's notification retry delays (e.g. 0.001 in tests). */
  WECHAT_SANDBOX_RETRY_FACTOR: z.coerce
    .number()
    .positive('WECHAT_SANDBOX_RETRY_FACTOR 必须大于 0')
    .max(1)
    .default(1),
  /**
   * The sandbox credits wallets without real money, so it is on by default only with the embedded DB. With
   * DATABASE_URL and no live credentials the server refuses to start unless this says `true` (test servers).
   */
  WECHAT_SANDBOX: z
    .union([z.boolean(), z.enum(['1', '0', 'true', 'false', 'yes', 'no', ''])])
    .optional()
    .transform((v) =>
      v === undefined || v === '' ? undefined : v === true || v === '1' || v === 'true' || v === 'yes',
    ),
  // ---- end WeChat
  // ---- Devices over MQTT (docs/device-protocol.md)
  /** An external broker for the gateway (mqtt:// or mqtts://, credentials in the URL); none = the embedded one. */
  MQTT_URL: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .regex(/^(mqtts?|wss?):\/\/[^/]/, 'MQTT_URL 必须以 mqtt://、mqtts://、ws:// 或 wss:// 开头')
      .optional(),
  ),
  /** Port of the embedded broker; default 1883 (any free port when PORT=0 or in tests). */
  MQTT_PORT: z.preprocess(
    emptyToUndefined,
    z.coerce.number().int().min(0, 'MQTT_PORT 必须是 0 到 65535 的整数').max(65535).optional(),
  ),
  /** The server's secret on the embedded broker (another API instance connects with it); random when unset. */
  MQTT_SERVER_SECRET: z.preprocess(
    emptyToUndefined,
    z.string().min(16, 'MQTT_SERVER_SECRET 至少 16 个字符').optional(),
  ),
  /**
   * With MQTT_URL: this instance's own client id on the broker, for a persistent session (what devices publish
   * while the server restarts is queued for it). Each API instance needs its own; none = a clean session.
   */
  MQTT_CLIENT_ID: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/, 'MQTT_CLIENT_ID 只能包含字母、数字、_ 和 -（最多 64 个）')
      .optional(),
  ),
  /** Subscribe through MQTT 5 shared subscriptions `$share/scango/` (a broker that has them, e.g. Mosquitto). */
  MQTT_SHARED: bool(false),
  /**
   * With MQTT_URL on a Mosquitto with its dynamic security plugin: the server keeps each device's client, password
   * and ACL there (MQTT_URL's user must be a dynsec admin). See docs/device-protocol.md.
   */
  MQTT_DYNSEC: bool(false),
  /** Simulate the devices staff issued no secret as MQTT clients; on by default, only with the embedded broker. */
  DEVICE_SIMULATOR: z
    .union([z.boolean(), z.enum(['1', '0', 'true', 'false', 'yes', 'no', ''])])
    .optional()
    .transform((v) =>
      v === undefined || v === '' ? undefined : v === true || v === '1' || v === 'true' || v === 'yes',
    ),
  // ---- end MQTT
});

/** What callers pass in: raw strings from process.env, or typed overrides from tests. */
export type EnvInput = { [K in keyof z.input<typeof EnvSchema>]?: z.input<typeof EnvSchema>[K] | string };
export type Env = Omit<z.output<typeof EnvSchema>, 'MQTT_PORT' | 'DEVICE_SIMULATOR'> & {
  PUBLIC_URL: string;
  MQTT_PORT: number;
  DEVICE_SIMULATOR: boolean;
};

export class EnvError extends Error {
  constructor(readonly issues: string[]) {
    super(`配置错误 (invalid environment):\n${issues.map((i) => `  - ${i}`).join('\n')}`);
    this.name = 'EnvError';
  }
}

/** Parses the environment; overrides win over `source`. Throws EnvError listing every bad variable. */
export function parseEnv(
  overrides: EnvInput = {},
  source: Record<string, string | undefined> = process.env,
): Env {
  const keys = Object.keys(EnvSchema.shape) as (keyof EnvInput)[];
  const raw: Record<string, unknown> = {};
  for (const k of keys) {
    const v = k in overrides ? overrides[k] : source[k];
    if (v !== undefined) raw[k] = v;
  }
  const parsed = EnvSchema.safeParse(raw);
  if (!parsed.success) {
    throw new EnvError(
      parsed.error.issues.map((i) => {
        const name = i.path.join('.') || '(env)';
        return `${name}=${JSON.stringify(raw[name] ?? null)}: ${i.message}`;
      }),
    );
  }
  const env = parsed.data;
  if (env.MQTT_DYNSEC && !env.MQTT_URL) {
    throw new EnvError([
      'MQTT_DYNSEC=true: 需要 MQTT_URL（装有动态安全插件的外部 Mosquitto，用户须为 dynsec 管理员）',
    ]);
  }
  const port = env.PORT || 8080;
  return {
    ...env,
    PUBLIC_URL: (env.PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/+$/, ''),
    // Tests and PORT=0 servers run side by side: their brokers take any free port too.
    MQTT_PORT: env.MQTT_PORT ?? (env.PORT === 0 || env.NODE_ENV === 'test' ? 0 : 1883),
    DEVICE_SIMULATOR: env.DEVICE_SIMULATOR ?? env.MQTT_URL === undefined,
  };
}
