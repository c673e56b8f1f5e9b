/**
 * The sandbox's checks of a JSAPI prepay body, with WeChat's error codes and Chinese messages (PARAM_ERROR naming the
 * field, APPID_MCHID_NOT_MATCH).
 */
import type { SandboxKeys } from './keys';
import { OUT_TRADE_NO_RE, RFC3339_RE, SandboxPayError } from './pay-wire.sandbox';

export interface PrepayParams {
  appid: string;
  mchid: string;
  description: string;
  outTradeNo: string;
  timeExpire: string | null;
  attach: string | null;
  notifyUrl: string;
  total: number;
  openid: string;
}

/** A prepay body's fields once checked, or the SandboxPayError WeChat answers for the first bad one. */
export function prepayParams(input: unknown, keys: SandboxKeys, mchidFromAuth: string): PrepayParams {
  const b = (input ?? {}) as Record<string, unknown>;
  const param = (field: string, label: string, value: unknown, rule: string) =>
    new SandboxPayError(400, 'PARAM_ERROR', `输入源“/body/${field}”映射到值字段“${label}”${rule}`, {
      location: 'body',
      value: value ?? null,
    });
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const appid = str(b.appid);
  const mchid = str(b.mchid);
  if (!appid) throw param('appid', '应用ID', b.appid, '必填字符串');
  if (!mchid) throw param('mchid', '直连商户号', b.mchid, '必填字符串');
  if (mchid !== mchidFromAuth || mchid !== keys.mchid || appid !== keys.appid) {
    throw new SandboxPayError(400, 'APPID_MCHID_NOT_MATCH', 'AppID和mch_id不匹配');
  }
  const description = str(b.description);
  if (!description || [...description].length > 127) {
    throw param('description', '商品描述', b.description, '长度必须在 1 到 127 之间');
  }
  const outTradeNo = str(b.out_trade_no);
  if (!outTradeNo || !OUT_TRADE_NO_RE.test(outTradeNo)) {
    throw param('out_trade_no', '商户订单号', b.out_trade_no, '必须是 6-32 位数字、大小写字母或 _-|*');
  }
  const timeExpire = b.time_expire === undefined ? null : str(b.time_expire);
  if (timeExpire === undefined || (timeExpire !== null && !RFC3339_RE.test(timeExpire))) {
    throw param(
      'time_expire',
      '交易结束时间',
      b.time_expire,
      '字符串规则校验失败，字符串必须是符合 RFC3339 日期时间格式',
    );
  }
  const attach = b.attach === undefined ? null : str(b.attach);
  if (attach === undefined || (attach !== null && [...attach].length > 128)) {
    throw param('attach', '附加数据', b.attach, '长度不能超过 128');
  }
  const notifyUrl = str(b.notify_url);
  if (!notifyUrl || !isNotifyUrl(notifyUrl))
    throw param('notify_url', '通知地址', b.notify_url, '必须是可访问的 URL，且不能携带参数');
  const amount = (b.amount ?? {}) as Record<string, unknown>;
  const total = amount.total;
  if (typeof total !== 'number' || !Number.isSafeInteger(total) || total <= 0 || total > 2_147_483_647) {
    throw param('amount/total', '总金额', total, '必须是正整数（单位：分）');
  }
  if (amount.currency !== undefined && amount.currency !== 'CNY') {
    throw param('amount/currency', '货币类型', amount.currency, '只支持 CNY');
  }
  const payer = (b.payer ?? {}) as Record<string, unknown>;
  const openid = str(payer.openid);
  if (!openid || openid.length > 128) throw param('payer/openid', '用户标识', payer.openid, '必填字符串');
  return { appid, mchid, description, outTradeNo, timeExpire, attach, notifyUrl, total, openid };
}

/** An absolute http(s) URL without a query: what WeChat accepts as notify_url. */
function isNotifyUrl(notifyUrl: string): boolean {
  try {
    const u = new URL(notifyUrl);
    return (u.protocol === 'https:' || u.protocol === 'http:') && u.search === '' && !notifyUrl.includes('?');
  } catch {
    return false;
  }
}
