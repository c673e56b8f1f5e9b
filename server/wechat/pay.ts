/**
 * WeChat Pay API v3 (JSAPI) client: signs every request with the merchant key, verifies every 2xx answer and every
 * notification with the platform public key over the raw body, decrypts AEAD_AES_256_GCM resources, and turns
 * WeChat's `{code, message, detail}` errors into WechatPayError. The sandbox speaks the same protocol, so this one
 * class runs in tests and in production; only its configuration changes.
 */
import {
  AUTH_SCHEMA,
  aesGcmDecrypt,
  headerValue,
  nonceStr,
  paySignMessage,
  requestMessage,
  responseMessage,
  rfc3339China,
  rsaOaepEncrypt,
  rsaSign,
  rsaVerify,
} from './crypto';
import { newestPlatformKey } from './platform-keys';
import {
  WechatPayError,
  WechatPayVerifyError,
  type FetchLike,
  type HeadersLike,
  type AbnormalRefundInput,
  type JsapiPayParams,
  type NotificationEnvelope,
  type PayNotification,
  type PrepayJsapiInput,
  type Refund,
  type RefundInput,
  type RefundNotice,
  type Transaction,
  type WechatPay,
  type WechatPayConfig,
} from './types';

/** WeChat Pay rejects (and we reject) signatures whose timestamp is more than 5 minutes off. */
const MAX_CLOCK_SKEW_S = 300;
const SIGNTEST_PREFIX = 'WECHATPAY/SIGNTEST/';

/** Owns the WeChat Pay v3 wire protocol: request signing, answer verification, notifications. */
export class WechatPayClient implements WechatPay {
  readonly appid: string;
  readonly mchid: string;
  private readonly fetch: FetchLike;
  private readonly now: () => number;

  constructor(private readonly config: WechatPayConfig) {
    if (Buffer.byteLength(config.apiV3Key, 'utf8') !== 32) throw new Error('APIv3 key must be 32 bytes');
    this.appid = config.appid;
    this.mchid = config.mchid;
    this.fetch = config.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.now = config.now ?? Date.now;
  }

  /** The `Authorization` header value for one request (exported for the sandbox tests' tampering). */
  authorization(method: string, canonicalUrl: string, body: string): string {
    const timestamp = String(Math.floor(this.now() / 1000));
    const nonce = nonceStr(32);
    const signature = rsaSign(
      requestMessage(method, canonicalUrl, timestamp, nonce, body),
      this.config.merchantPrivateKey,
    );
    return (
      `${AUTH_SCHEMA} mchid="${this.mchid}",nonce_str="${nonce}",timestamp="${timestamp}",` +
      `serial_no="${this.config.merchantSerialNo}",signature="${signature}"`
    );
  }

  async prepayJsapi(input: PrepayJsapiInput): Promise<{ prepay_id: string }> {
    if (!Number.isSafeInteger(input.amount_fen) || input.amount_fen <= 0) {
      throw new Error('amount_fen must be a positive integer');
    }
    const body: Record<string, unknown> = {
      appid: this.appid,
      mchid: this.mchid,
      description: input.description,
      out_trade_no: input.out_trade_no,
      ...(input.time_expire ? { time_expire: rfc3339China(input.time_expire) } : {}),
      ...(input.attach !== undefined ? { attach: input.attach } : {}),
      notify_url: this.config.notifyUrl,
      amount: { total: input.amount_fen, currency: 'CNY' },
      payer: { openid: input.openid },
    };
    const res = await this.call('POST', '/v3/pay/transactions/jsapi', body);
    const prepayId = (res.json as { prepay_id?: unknown } | null)?.prepay_id;
    if (typeof prepayId !== 'string')
      throw new WechatPayError(res.status, 'BAD_RESPONSE', '下单应答缺少 prepay_id');
    return { prepay_id: prepayId };
  }

  jsapiParams(prepayId: string): JsapiPayParams {
    const timeStamp = String(Math.floor(this.now() / 1000));
    const nonce = nonceStr(32);
    const pkg = `prepay_id=${prepayId}`;
    return {
      appId: this.appid,
      timeStamp,
      nonceStr: nonce,
      package: pkg,
      signType: 'RSA',
      paySign: rsaSign(paySignMessage(this.appid, timeStamp, nonce, pkg), this.config.merchantPrivateKey),
    };
  }

  async queryByOutTradeNo(outTradeNo: string): Promise<Transaction | null> {
    try {
      const res = await this.call(
        'GET',
        `/v3/pay/transactions/out-trade-no/${encodeURIComponent(outTradeNo)}?mchid=${encodeURIComponent(this.mchid)}`,
      );
      return res.json as Transaction;
    } catch (e) {
      if (e instanceof WechatPayError && (e.code === 'ORDER_NOT_EXIST' || e.code === 'ORDERNOTEXIST'))
        return null;
      throw e;
    }
  }

  async close(outTradeNo: string): Promise<void> {
    await this.call('POST', `/v3/pay/transactions/out-trade-no/${encodeURIComponent(outTradeNo)}/close`, {
      mchid: this.mchid,
    });
  }

  async refund(input: RefundInput): Promise<Refund> {
    if (!input.out_trade_no && !input.transaction_id)
      throw new Error('out_trade_no or transaction_id is required');
    const body: Record<string, unknown> = {
      ...(input.transaction_id
        ? { transaction_id: input.transaction_id }
        : { out_trade_no: input.out_trade_no }),
      out_refund_no: input.out_refund_no,
      ...(input.reason ? { reason: input.reason } : {}),
      ...(this.config.refundNotifyUrl ? { notify_url: this.config.refundNotifyUrl } : {}),
      amount: { refund: input.refund_fen, total: input.total_fen, currency: 'CNY' },
    };
    const res = await this.call('POST', '/v3/refund/domestic/refunds', body);
    return res.json as Refund;
  }

  async queryRefund(outRefundNo: string): Promise<Refund | null> {
    try {
      const res = await this.call('GET', `/v3/refund/domestic/refunds/${encodeURIComponent(outRefundNo)}`);
      return res.json as Refund;
    } catch (e) {
      if (e instanceof WechatPayError && e.status === 404) return null;
      throw e;
    }
  }

  async applyAbnormalRefund(input: AbnormalRefundInput): Promise<Refund> {
    const { refund_id, key_serial, ...body } = input;
    const path = `/v3/refund/domestic/refunds/${encodeURIComponent(refund_id)}/apply-abnormal-refund`;
    const res = await this.call('POST', path, body, key_serial ? { 'Wechatpay-Serial': key_serial } : {});
    return res.json as Refund;
  }

  encryptSensitive(plaintexts: string[]): { serial: string; ciphertexts: string[] } {
    const key = newestPlatformKey(this.config.platformPublicKeys, this.now());
    if (!key)
      throw new Error('no valid WeChat Pay platform key configured (all expired or not yet effective)');
    return { serial: key.serial, ciphertexts: plaintexts.map((p) => rsaOaepEncrypt(p, key.pem)) };
  }

  parseNotification(rawBody: string, headers: HeadersLike): PayNotification {
    this.verifySignature(rawBody, headers);
    let envelope: NotificationEnvelope;
    try {
      envelope = JSON.parse(rawBody) as NotificationEnvelope;
    } catch {
      throw new WechatPayVerifyError('BAD_BODY', '通知报文不是 JSON');
    }
    const r = envelope?.resource;
    if (
      !r ||
      typeof r.ciphertext !== 'string' ||
      typeof r.nonce !== 'string' ||
      typeof envelope.id !== 'string'
    ) {
      throw new WechatPayVerifyError('BAD_BODY', '通知报文缺少 resource');
    }
    if (r.algorithm !== 'AEAD_AES_256_GCM')
      throw new WechatPayVerifyError('BAD_BODY', `不支持的算法 ${r.algorithm}`);
    let plaintext: string;
    try {
      plaintext = aesGcmDecrypt(r.ciphertext, this.config.apiV3Key, r.nonce, r.associated_data ?? '');
    } catch {
      throw new WechatPayVerifyError('DECRYPT_FAILED', '通知解密失败（APIv3 密钥、nonce 或密文不符）');
    }
    let resource: Record<string, unknown>;
    try {
      resource = JSON.parse(plaintext) as Record<string, unknown>;
    } catch {
      throw new WechatPayVerifyError('BAD_BODY', '通知解密后不是 JSON');
    }
    if (resource.mchid !== this.mchid) throw new WechatPayVerifyError('BAD_BODY', '通知的商户号与本商户不符');
    const base = {
      id: envelope.id,
      create_time: envelope.create_time,
      event_type: envelope.event_type,
      ...(envelope.summary !== undefined ? { summary: envelope.summary } : {}),
    };
    if (r.original_type === 'refund')
      return { kind: 'refund', ...base, refund: resource as unknown as RefundNotice };
    if (resource.appid !== this.appid)
      throw new WechatPayVerifyError('BAD_BODY', '通知的 appid 与本应用不符');
    return { kind: 'transaction', ...base, transaction: resource as unknown as Transaction };
  }

  /** Checks the Wechatpay-* headers against the raw body (responses and notifications alike). */
  private verifySignature(rawBody: string, headers: HeadersLike): void {
    const timestamp = headerValue(headers, 'Wechatpay-Timestamp');
    const nonce = headerValue(headers, 'Wechatpay-Nonce');
    const signature = headerValue(headers, 'Wechatpay-Signature');
    const serial = headerValue(headers, 'Wechatpay-Serial');
    if (!timestamp || !nonce || !signature || !serial) {
      throw new WechatPayVerifyError('MISSING_HEADERS', '缺少 Wechatpay-* 签名头');
    }
    // WeChat sends probe traffic with a deliberately invalid signature to check that merchants verify.
    if (signature.startsWith(SIGNTEST_PREFIX))
      throw new WechatPayVerifyError('SIGNTEST_PROBE', '签名探测流量');
    const ts = Number(timestamp);
    if (!/^\d{1,12}$/.test(timestamp) || Math.abs(this.now() / 1000 - ts) > MAX_CLOCK_SKEW_S) {
      throw new WechatPayVerifyError('STALE_TIMESTAMP', '签名时间戳与当前时间相差超过 5 分钟');
    }
    const publicKey = this.config.platformPublicKeys[serial];
    if (!publicKey) throw new WechatPayVerifyError('UNKNOWN_SERIAL', `未知的平台证书序列号 ${serial}`);
    if (!rsaVerify(responseMessage(timestamp, nonce, rawBody), signature, publicKey)) {
      throw new WechatPayVerifyError('BAD_SIGNATURE', '签名验证失败');
    }
  }

  /** One signed API call; verifies 2xx answers, throws WechatPayError for error answers. */
  private async call(
    method: 'GET' | 'POST',
    pathAndQuery: string,
    body?: unknown,
    extraHeaders: Record<string, string> = {},
  ): Promise<{ status: number; json: unknown }> {
    const url = `${this.config.apiBase.replace(/\/+$/, '')}${pathAndQuery}`;
    const u = new URL(url);
    // The canonical URL is the request URI as the server sees it (path + query), base path included.
    const canonical = `${u.pathname}${u.search}`;
    const text = body === undefined ? '' : JSON.stringify(body);
    const headers: Record<string, string> = {
      Authorization: this.authorization(method, canonical, text),
      Accept: 'application/json',
      'User-Agent': 'scango-wechatpay/1.0',
      ...extraHeaders,
    };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let res: Response;
    let raw: string;
    try {
      res = await this.fetch(url, {
        method,
        headers,
        signal: AbortSignal.timeout(this.config.timeoutMs ?? 10_000),
        ...(body !== undefined ? { body: text } : {}),
      });
      raw = await res.text();
    } catch (e) {
      // Unknown outcome (the request may have reached WeChat): callers retry with the same out_trade_no.
      throw new WechatPayError(0, 'NETWORK_ERROR', `无法连接微信支付：${(e as Error).message}`);
    }
    if (res.status >= 200 && res.status < 300) {
      this.verifySignature(raw, res.headers);
      try {
        return { status: res.status, json: raw ? (JSON.parse(raw) as unknown) : null };
      } catch {
        throw new WechatPayError(res.status, 'BAD_RESPONSE', '微信支付应答不是 JSON');
      }
    }
    let err: { code?: unknown; message?: unknown; detail?: unknown } = {};
    try {
      err = JSON.parse(raw) as typeof err;
    } catch {
      // Not JSON (a proxy page, say): keep the status.
    }
    throw new WechatPayError(
      res.status,
      typeof err.code === 'string' ? err.code : `HTTP_${res.status}`,
      typeof err.message === 'string' ? err.message : `微信支付应答 HTTP ${res.status}`,
      err.detail,
    );
  }
}
