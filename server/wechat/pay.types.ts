/** Types of WeChat Pay API v3 (JSAPI): configuration, prepay, transactions, refunds, notifications and errors. */
import type { FetchLike, HeadersLike } from './types';

export interface WechatPayConfig {
  appid: string;
  mchid: string;
  /** Serial number of the merchant API certificate (goes into `serial_no` of the Authorization header). */
  merchantSerialNo: string;
  /** Merchant API private key (apiclient_key.pem), PEM text. */
  merchantPrivateKey: string;
  /** APIv3 key: 32 ASCII characters. */
  apiV3Key: string;
  /** Platform certificate serials or `PUB_KEY_ID_…` ids -> public key PEM, to verify responses and notifications. */
  platformPublicKeys: Record<string, string>;
  /** `https://api.mch.weixin.qq.com` in production; `<PUBLIC_URL>/backend/sandbox/wechatpay` in sandbox mode. */
  apiBase: string;
  /** Public HTTPS URL without query string that receives payment notifications. */
  notifyUrl: string;
  /** Refund notification URL (optional). */
  refundNotifyUrl?: string;
  fetch?: FetchLike;
  /** Per-request time limit in ms (default 10 000); network failures and timeouts throw WechatPayError status 0. */
  timeoutMs?: number;
  /** Clock in milliseconds (tests inject one). */
  now?: () => number;
}

export interface PrepayJsapiInput {
  /** 6–32 chars of [0-9A-Za-z_-|*], unique per mchid. */
  out_trade_no: string;
  /** ≤127 chars, shown in the payer's bill. */
  description: string;
  /** Positive integer fen. */
  amount_fen: number;
  /** The payer's openid under our appid. */
  openid: string;
  /** Payment deadline; sent as RFC3339 with +08:00 and no milliseconds. */
  time_expire?: Date;
  /** ≤128 chars, echoed in query and notification. */
  attach?: string;
}

/** Parameters for `WeixinJSBridge.invoke('getBrandWCPayRequest', …)`; same shape as JsapiParams in src/domain/api. */
export interface JsapiPayParams {
  appId: string;
  /** Unix seconds, as a string. */
  timeStamp: string;
  nonceStr: string;
  /** `prepay_id=…` */
  package: string;
  signType: 'RSA';
  /** Base64 SHA256withRSA over `appId\ntimeStamp\nnonceStr\npackage\n` with the merchant key. */
  paySign: string;
}

export type TradeState = 'SUCCESS' | 'REFUND' | 'NOTPAY' | 'CLOSED' | 'REVOKED' | 'USERPAYING' | 'PAYERROR';

/** A payment transaction as WeChat Pay returns it (query answer and decrypted TRANSACTION.SUCCESS resource). */
export interface Transaction {
  appid: string;
  mchid: string;
  out_trade_no: string;
  /** Absent while unpaid. */
  transaction_id?: string;
  trade_type?: string;
  trade_state: TradeState;
  trade_state_desc: string;
  bank_type?: string;
  attach?: string;
  /** RFC3339, present once paid. */
  success_time?: string;
  payer?: { openid: string };
  amount?: { total: number; payer_total?: number; currency?: string; payer_currency?: string };
  scene_info?: { device_id?: string };
  promotion_detail?: unknown[];
}

export interface RefundInput {
  /** One of out_trade_no / transaction_id. */
  out_trade_no?: string;
  transaction_id?: string;
  /** Unique per mchid; resubmit a failed refund with the same number. */
  out_refund_no: string;
  reason?: string;
  /** Amount to refund, fen. */
  refund_fen: number;
  /** Original order total, fen. */
  total_fen: number;
}

/**
 * `POST /v3/refund/domestic/refunds/{refund_id}/apply-abnormal-refund`: USER_BANK_CARD needs the bank (WeChat's
 * bank code), the card number and the holder's name, the last two encrypted (`encryptSensitive`) with the key of
 * `key_serial`; MERCHANT_BANK_CARD sends the money to the merchant's settlement bank account.
 */
export interface AbnormalRefundInput {
  refund_id: string;
  out_refund_no: string;
  type: 'USER_BANK_CARD' | 'MERCHANT_BANK_CARD';
  bank_type?: string;
  bank_account?: string;
  real_name?: string;
  key_serial?: string;
}

export type RefundStatus = 'SUCCESS' | 'CLOSED' | 'PROCESSING' | 'ABNORMAL';

export interface Refund {
  refund_id: string;
  out_refund_no: string;
  transaction_id: string;
  out_trade_no: string;
  channel: string;
  user_received_account: string;
  success_time?: string;
  create_time: string;
  status: RefundStatus;
  funds_account?: string;
  amount: {
    total: number;
    refund: number;
    payer_total: number;
    payer_refund: number;
    settlement_refund?: number;
    settlement_total?: number;
    discount_refund?: number;
    currency: string;
  };
}

/** Decrypted REFUND.* notification resource (note: `refund_status`, not `status`). */
export interface RefundNotice {
  mchid: string;
  out_trade_no: string;
  transaction_id: string;
  out_refund_no: string;
  refund_id: string;
  refund_status: RefundStatus;
  success_time?: string;
  user_received_account?: string;
  amount: { total: number; refund: number; payer_total: number; payer_refund: number };
}

/** The JSON envelope WeChat Pay POSTs to notify_url. */
export interface NotificationEnvelope {
  id: string;
  create_time: string;
  event_type: string;
  resource_type: string;
  summary?: string;
  resource: {
    original_type: string;
    algorithm: 'AEAD_AES_256_GCM';
    ciphertext: string;
    associated_data?: string;
    nonce: string;
  };
}

/** A notification whose signature was verified and whose resource was decrypted. */
export type PayNotification =
  | {
      kind: 'transaction';
      id: string;
      create_time: string;
      event_type: string;
      summary?: string;
      transaction: Transaction;
    }
  | {
      kind: 'refund';
      id: string;
      create_time: string;
      event_type: string;
      summary?: string;
      refund: RefundNotice;
    };

/** An error answer of the WeChat Pay API (non-2xx with `{code, message, detail?}`). */
export class WechatPayError extends Error {
  override readonly name = 'WechatPayError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly detail?: unknown,
  ) {
    super(message);
  }
}

export type VerifyFailure =
  | 'MISSING_HEADERS'
  | 'SIGNTEST_PROBE'
  | 'STALE_TIMESTAMP'
  | 'UNKNOWN_SERIAL'
  | 'BAD_SIGNATURE'
  | 'BAD_BODY'
  | 'DECRYPT_FAILED';

/**
 * A response or notification that failed verification or decryption. A notify handler answers it with HTTP 401
 * (so WeChat retries a genuine one) and changes nothing.
 */
export class WechatPayVerifyError extends Error {
  override readonly name = 'WechatPayVerifyError';
  constructor(
    readonly reason: VerifyFailure,
    message: string,
  ) {
    super(message);
  }
}

/** What the payment service needs from the Pay client. */
export interface WechatPay {
  readonly appid: string;
  readonly mchid: string;
  prepayJsapi(input: PrepayJsapiInput): Promise<{ prepay_id: string }>;
  jsapiParams(prepayId: string): JsapiPayParams;
  /** `null` when WeChat answers ORDER_NOT_EXIST / ORDERNOTEXIST. */
  queryByOutTradeNo(outTradeNo: string): Promise<Transaction | null>;
  close(outTradeNo: string): Promise<void>;
  refund(input: RefundInput): Promise<Refund>;
  queryRefund(outRefundNo: string): Promise<Refund | null>;
  /** WeChat's apply-abnormal-refund: redirects a refund that ended ABNORMAL to a bank card. */
  applyAbnormalRefund(input: AbnormalRefundInput): Promise<Refund>;
  /**
   * Encrypts sensitive fields, all with the one newest valid platform key (server/wechat/platform-keys.ts);
   * `serial` names it and goes into Wechatpay-Serial.
   */
  encryptSensitive(plaintexts: string[]): { serial: string; ciphertexts: string[] };
  /** Verify (raw body, Wechatpay-* headers) and decrypt; throws WechatPayVerifyError. */
  parseNotification(rawBody: string, headers: HeadersLike): PayNotification;
}
