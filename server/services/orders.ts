/**
 * Orders and the money they move (docs/money.md): order numbers, the split of a consumption (platform fee, partner
 * shares, merchant settlement), wallet debits, recharge credits and refunds. Everything here runs inside the
 * caller's DB transaction and writes balances only through the ledger service.
 */
import { randomInt } from 'node:crypto';
import { isSafeReturnPath } from '../lib/return-path';
import { and, asc, eq, inArray, isNull, lte, or } from 'drizzle-orm';
import { z } from 'zod';
import type {
  JsapiParams,
  OrderStatus,
  OrderSummary,
  PayRequest,
  PayResponse,
  RechargeRequest,
  RechargeResponse,
  UsingSession,
} from '../../src/domain/api';
import { proRata } from '../../src/domain/money';
import type { Db, Tx } from '../db/client';
import {
  device_sessions,
  devices,
  ledger_entries,
  ledger_transactions,
  members,
  merchants,
  orders,
  packages,
  pay_notifications,
  service_prices,
  share_rules,
  wallets,
} from '../db/schema';
import { HttpError } from '../lib/errors';
import type { Transaction, Wechat } from '../wechat/types';
import {
  AVAILABILITY_MESSAGES,
  beginSession,
  checkDeviceAvailable,
  type Availability,
} from './devices/sessions';
import {
  type Entry,
  type Wallet,
  externalWallet,
  memberWallet,
  merchantWallet,
  partnerWallet,
  platformWallet,
  postTransaction,
  spendable,
} from './ledger';

export type Order = typeof orders.$inferSelect;

/** A refund or settlement the order does not allow (more than was paid, unpaid order...): a caller's bug. */
export class OrderMoneyError extends Error {
  override readonly name = 'OrderMoneyError';
}

// ---------------------------------------------------------------- order numbers

/**
 * `C` (consume) or `R` (recharge) + UTC yyyyMMddHHmmss + 10 random digits: 25 characters, valid as WeChat's
 * out_trade_no (6-32 of [0-9A-Za-z]), sortable by time, and not guessable from a neighbour (the public order query
 * takes it).
 */
export function newOrderNo(kind: 'consume' | 'recharge', now: Date = new Date()): string {
  const stamp = now
    .toISOString()
    .replace(/[-:TZ.]/g, '')
    .slice(0, 14);
  const rand = `${randomInt(0, 100_000).toString().padStart(5, '0')}${randomInt(0, 100_000).toString().padStart(5, '0')}`;
  return `${kind === 'consume' ? 'C' : 'R'}${stamp}${rand}`;
}

// ---------------------------------------------------------------- the split

export interface Split {
  fee_fen: number;
  shares: { account_id: number; amount_fen: number }[];
  merchant_fen: number;
}

/**
 * Splits the principal (real money) part of a consumption: platform fee = floor(principal * fee_rate_bp / 10000);
 * each partner share = floor((principal - fee) * ratio_bp / 10000) by the venue's rules (capped so shares never
 * exceed the net); the rest to the merchant. The parts always add up to `principalFen`.
 */
export function computeSplit(
  principalFen: number,
  feeRateBp: number,
  rules: { partner_account_id: number; ratio_bp: number }[],
): Split {
  const fee = proRata(principalFen, feeRateBp, 10_000);
  const net = principalFen - fee;
  let left = net;
  const shares: Split['shares'] = [];
  for (const r of [...rules].sort((a, b) => a.partner_account_id - b.partner_account_id)) {
    const amount = Math.min(proRata(net, r.ratio_bp, 10_000), left);
    left -= amount;
    if (amount > 0) shares.push({ account_id: r.partner_account_id, amount_fen: amount });
  }
  return { fee_fen: fee, shares, merchant_fen: left };
}

/** Ledger credits for a split: platform fee, partner shares, merchant settlement (principal buckets). */
async function splitCredits(tx: Tx, order: Order, principalFen: number): Promise<Entry[]> {
  if (principalFen === 0) return [];
  const [merchant] = await tx
    .select({ fee_rate_bp: merchants.fee_rate_bp })
    .from(merchants)
    .where(eq(merchants.id, order.merchant_id));
  if (!merchant) throw new OrderMoneyError(`merchant ${order.merchant_id} not found`);
  const rules =
    order.venue_id === null
      ? []
      : await tx
          .select({ partner_account_id: share_rules.partner_account_id, ratio_bp: share_rules.ratio_bp })
          .from(share_rules)
          .where(
            and(eq(share_rules.venue_id, order.venue_id), eq(share_rules.merchant_id, order.merchant_id)),
          );
  const split = computeSplit(principalFen, merchant.fee_rate_bp, rules);
  const entries: Entry[] = [];
  if (split.fee_fen > 0)
    entries.push({
      wallet_id: (await platformWallet(tx)).id,
      bucket: 'principal',
      amount_fen: split.fee_fen,
    });
  for (const s of split.shares) {
    const w = await partnerWallet(tx, s.account_id, order.merchant_id);
    entries.push({ wallet_id: w.id, bucket: 'principal', amount_fen: s.amount_fen });
  }
  if (split.merchant_fen > 0) {
    const w = await merchantWallet(tx, order.merchant_id);
    entries.push({ wallet_id: w.id, bucket: 'principal', amount_fen: split.merchant_fen });
  }
  return entries;
}

// ---------------------------------------------------------------- paying

/** How a wallet pay takes the amount: principal first, then bonus (decision, docs/money.md). */
export function takeFromWallet(
  w: Pick<Wallet, 'principal_fen' | 'bonus_fen'>,
  amountFen: number,
): { principal_fen: number; bonus_fen: number } | null {
  if (w.principal_fen + w.bonus_fen < amountFen) return null;
  const principal = Math.min(w.principal_fen, amountFen);
  return { principal_fen: principal, bonus_fen: amountFen - principal };
}

/**
 * Debits a consume order from the member's (already locked) wallet and splits it: the principal part is split,
 * the bonus part goes back to external promotion (it was never money). Sets paid/paid_at/bonus_fen on the order.
 * Returns false when the balance does not cover the amount (nothing written).
 */
export async function settleWalletConsume(tx: Tx, order: Order, wallet: Wallet, now: Date): Promise<boolean> {
  const take = takeFromWallet(wallet, order.amount_fen);
  if (!take) return false;
  const entries: Entry[] = [
    { wallet_id: wallet.id, bucket: 'principal', amount_fen: -take.principal_fen },
    { wallet_id: wallet.id, bucket: 'bonus', amount_fen: -take.bonus_fen },
    ...(await splitCredits(tx, order, take.principal_fen)),
  ];
  if (take.bonus_fen > 0) {
    const promo = await externalWallet(tx, 'promotion');
    entries.push({ wallet_id: promo.id, bucket: 'principal', amount_fen: take.bonus_fen });
  }
  await postTransaction(tx, {
    kind: 'consume',
    order_id: order.id,
    memo: `余额支付 ${order.order_no}`,
    entries,
  });
  await tx
    .update(orders)
    .set({ status: 'paid', paid_at: now, bonus_fen: take.bonus_fen })
    .where(eq(orders.id, order.id));
  return true;
}

/**
 * Books a WeChat payment of a pending order (called once, from a verified notification or an order query, with
 * the order row locked): a consume is split at once; a recharge credits the member's principal (pay) and bonus
 * (from external promotion), not split. Sets paid/paid_at/transaction id.
 */
export async function settleWechatPayment(
  tx: Tx,
  order: Order,
  payment: { transaction_id: string | null; now: Date },
): Promise<void> {
  if (order.status !== 'pending')
    throw new OrderMoneyError(`order ${order.order_no} is ${order.status}, not pending`);
  // Lock order: a member's wallet before any system wallet, in every movement (no deadlock with a wallet pay).
  if (order.member_id !== null) await memberWallet(tx, order.member_id, order.merchant_id, { lock: true });
  const wechat = await externalWallet(tx, 'wechat');
  const entries: Entry[] = [{ wallet_id: wechat.id, bucket: 'principal', amount_fen: -order.amount_fen }];
  if (order.kind === 'consume') {
    entries.push(...(await splitCredits(tx, order, order.amount_fen)));
  } else {
    if (order.member_id === null) throw new OrderMoneyError(`recharge ${order.order_no} has no member`);
    const w = await memberWallet(tx, order.member_id, order.merchant_id);
    entries.push({ wallet_id: w.id, bucket: 'principal', amount_fen: order.amount_fen });
    if (order.bonus_fen > 0) {
      const promo = await externalWallet(tx, 'promotion');
      entries.push({ wallet_id: promo.id, bucket: 'principal', amount_fen: -order.bonus_fen });
      entries.push({ wallet_id: w.id, bucket: 'bonus', amount_fen: order.bonus_fen });
    }
  }
  await postTransaction(tx, {
    kind: order.kind,
    order_id: order.id,
    memo: `微信支付 ${order.order_no}`,
    entries,
  });
  await tx
    .update(orders)
    .set({ status: 'paid', paid_at: payment.now, wechat_transaction_id: payment.transaction_id })
    .where(eq(orders.id, order.id));
}

// ---------------------------------------------------------------- refunds

/**
 * Allocates `part` of `total` over `weights` (which sum to `total`) by prefix floors: recipient j gets
 * floor(W_j * part / total) - floor(W_{j-1} * part / total) where W are prefix sums. The parts sum to `part`
 * exactly, each stays within [0, weight], and `part = total` gives back the weights themselves.
 */
export function allocateByPrefix(weights: number[], total: number, part: number): number[] {
  if (total === 0) return weights.map(() => 0);
  let prefix = 0;
  let prevCum = 0;
  return weights.map((w) => {
    prefix += w;
    const cum = proRata(prefix, part, total);
    const share = cum - prevCum;
    prevCum = cum;
    return share;
  });
}

/**
 * Refunds `amount_fen` of a paid consume order (a failed start, no acknowledgement, a stop before the end). Refuses more
 * than is left to refund. Reverses what the payment did, proportionally and cumulatively (so two partial refunds
 * that add up to the whole return exactly what was taken): a wallet pay gives back principal and bonus in the
 * proportions they were taken (bonus taken back from external promotion), a WeChat pay credits the member's wallet
 * at that merchant as principal (decision: instant, to the wallet); the split (fee, shares, merchant) is reversed
 * in the same proportion. Sets refunded_fen and status 'refunded'. A zero amount is a no-op.
 */
export async function refundOrder(
  tx: Tx,
  input: { order_id: number; amount_fen: number; reason: string },
): Promise<void> {
  const { order_id, amount_fen: r, reason } = input;
  if (!Number.isSafeInteger(r) || r < 0)
    throw new OrderMoneyError(`refund amount must be whole fen >= 0: ${r}`);
  const [order] = await tx.select().from(orders).where(eq(orders.id, order_id)).for('update');
  if (!order) throw new OrderMoneyError(`order ${order_id} not found`);
  if (r === 0) return;
  if (order.kind !== 'consume')
    throw new OrderMoneyError(`order ${order.order_no} is a ${order.kind}, not a consume`);
  if (order.paid_at === null) throw new OrderMoneyError(`order ${order.order_no} was never paid`);
  const before = order.refunded_fen;
  const after = before + r;
  if (after > order.amount_fen) {
    throw new OrderMoneyError(
      `refund of ${r} on order ${order.order_no} exceeds what is left (${order.amount_fen - before})`,
    );
  }

  // The member's wallet before any system wallet (the lock order every movement follows).
  if (order.member_id !== null) await memberWallet(tx, order.member_id, order.merchant_id, { lock: true });

  // The payment: what it debited (sources) and credited (recipients), per wallet and bucket.
  const paymentEntries = await tx
    .select({
      wallet_id: ledger_entries.wallet_id,
      bucket: ledger_entries.bucket,
      amount_fen: ledger_entries.amount_fen,
      kind: wallets.kind,
      code: wallets.code,
    })
    .from(ledger_entries)
    .innerJoin(ledger_transactions, eq(ledger_transactions.id, ledger_entries.transaction_id))
    .innerJoin(wallets, eq(wallets.id, ledger_entries.wallet_id))
    .where(and(eq(ledger_transactions.order_id, order.id), eq(ledger_transactions.kind, 'consume')))
    .orderBy(asc(ledger_entries.id));
  if (paymentEntries.length === 0)
    throw new OrderMoneyError(`order ${order.order_no} has no payment in the ledger`);

  const total = order.amount_fen;
  const bonusTaken = order.method === 'wallet' ? order.bonus_fen : 0;
  const principalTaken = total - bonusTaken;
  // Cumulative split of refunds into bonus and principal parts.
  const bonusBack = (cum: number) => proRata(bonusTaken, cum, total);
  const dBonus = bonusBack(after) - bonusBack(before);
  const principalBack = (cum: number) => cum - bonusBack(cum);
  const dPrincipal = r - dBonus;

  const entries: Entry[] = [];

  // 1. Reverse the split of the principal part over what each recipient still holds from this order: shares by
  //    prefix floors of the remaining amounts (platform first, partners, the merchant last so it absorbs rounding),
  //    so every share is within [0, remaining] and the last refund returns exactly the rest.
  const rank = (k: string) => (k === 'platform' ? 0 : k === 'partner' ? 1 : 2);
  const recipients = paymentEntries
    .filter((e) => e.amount_fen > 0 && !(e.kind === 'external' && e.code === 'promotion'))
    .sort((a, b) => rank(a.kind) - rank(b.kind) || a.wallet_id - b.wallet_id);
  const reversed = await tx
    .select({
      wallet_id: ledger_entries.wallet_id,
      bucket: ledger_entries.bucket,
      amount_fen: ledger_entries.amount_fen,
    })
    .from(ledger_entries)
    .innerJoin(ledger_transactions, eq(ledger_transactions.id, ledger_entries.transaction_id))
    .where(and(eq(ledger_transactions.order_id, order.id), eq(ledger_transactions.kind, 'refund')));
  const remaining = recipients.map(
    (e) =>
      e.amount_fen +
      reversed
        .filter((x) => x.wallet_id === e.wallet_id && x.bucket === e.bucket && x.amount_fen < 0)
        .reduce((s, x) => s + x.amount_fen, 0),
  );
  const remainingTotal = remaining.reduce((s, x) => s + x, 0);
  if (remainingTotal !== principalTaken - principalBack(before)) {
    throw new OrderMoneyError(
      `order ${order.order_no}: split left to reverse ${remainingTotal} does not match`,
    );
  }
  const parts = allocateByPrefix(remaining, remainingTotal, dPrincipal);
  recipients.forEach((e, i) => {
    entries.push({ wallet_id: e.wallet_id, bucket: e.bucket, amount_fen: -(parts[i] ?? 0) });
  });

  // 2. The bonus part of a wallet pay comes back out of external promotion.
  if (dBonus > 0) {
    const promo = await externalWallet(tx, 'promotion');
    entries.push({ wallet_id: promo.id, bucket: 'principal', amount_fen: -dBonus });
  }

  // 3. Credit the member (or, with no member, whatever was debited).
  if (order.method === 'wallet' || (order.method === 'wechat' && order.member_id !== null)) {
    if (order.member_id === null) throw new OrderMoneyError(`wallet order ${order.order_no} has no member`);
    const w = await memberWallet(tx, order.member_id, order.merchant_id);
    entries.push({ wallet_id: w.id, bucket: 'principal', amount_fen: dPrincipal });
    entries.push({ wallet_id: w.id, bucket: 'bonus', amount_fen: dBonus });
  } else {
    const sources = paymentEntries.filter((e) => e.amount_fen < 0);
    const shares = allocateByPrefix(
      sources.map((e) => -e.amount_fen),
      total,
      r,
    );
    sources.forEach((e, i) =>
      entries.push({ wallet_id: e.wallet_id, bucket: e.bucket, amount_fen: shares[i] ?? 0 }),
    );
  }

  await postTransaction(tx, { kind: 'refund', order_id: order.id, memo: reason.slice(0, 200), entries });
  await tx
    .update(orders)
    .set({
      refunded_fen: after,
      status: 'refunded',
      ...(after === total && order.failure_reason === null ? { failure_reason: reason.slice(0, 200) } : {}),
    })
    .where(eq(orders.id, order.id));
}

/** Orders by number (helper for routes and tests). */
export async function findOrdersByNo(tx: Tx, orderNos: string[]): Promise<Order[]> {
  if (orderNos.length === 0) return [];
  return tx.select().from(orders).where(inArray(orders.order_no, orderNos));
}

// ---------------------------------------------------------------- the flows behind the end-user API

/** What the payment flows need from the server's dependencies (a view of AppDeps). */
export interface PaymentDeps {
  db: Db;
  now: () => Date;
  wechat?: Pick<Wechat, 'mode' | 'pay' | 'sandbox'> | undefined;
  devices?: { dispatch(session_id: number): Promise<void> } | undefined;
}

const DEVICE_REFUSALS: Record<Exclude<Availability, 'ok'>, { status: 409; code: string }> = {
  offline: { status: 409, code: 'DEVICE_OFFLINE' },
  busy: { status: 409, code: 'DEVICE_BUSY' },
  fault: { status: 409, code: 'DEVICE_UNAVAILABLE' },
  disabled: { status: 409, code: 'DEVICE_UNAVAILABLE' },
};

function deviceRefusal(a: Exclude<Availability, 'ok'>): HttpError {
  return new HttpError(DEVICE_REFUSALS[a].status, DEVICE_REFUSALS[a].code, AVAILABILITY_MESSAGES[a].message);
}

/** PostgreSQL unique violation (node-postgres and PGlite both carry SQLSTATE in `code`, drizzle wraps in cause). */
function isUniqueViolation(err: unknown): boolean {
  for (let e: unknown = err, i = 0; e && i < 4; i++) {
    if (typeof e === 'object' && (e as { code?: unknown }).code === '23505') return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** An order as the API shows it. */
export function orderSummary(o: Pick<Order, 'order_no' | 'status' | 'amount_fen'>): OrderSummary {
  return { order_no: o.order_no, status: o.status, amount_fen: o.amount_fen };
}

/** The session of a consume order in the `/user/using` shape. */
export async function usingSessionOf(db: Db | Tx, order: Order): Promise<UsingSession | undefined> {
  const [s] = await db
    .select({
      device_id: device_sessions.device_id,
      device_name: devices.name,
      minutes: device_sessions.minutes,
      started_at: device_sessions.started_at,
      ends_at: device_sessions.ends_at,
      status: device_sessions.status,
    })
    .from(device_sessions)
    .innerJoin(devices, eq(devices.id, device_sessions.device_id))
    .where(eq(device_sessions.order_id, order.id));
  if (!s) return undefined;
  return {
    order_no: order.order_no,
    device_id: s.device_id,
    device_name: s.device_name,
    minutes: s.minutes,
    amount_fen: order.amount_fen,
    started_at: s.started_at?.toISOString() ?? null,
    ends_at: s.ends_at?.toISOString() ?? null,
    status: s.status,
  };
}

function requireWechat(deps: PaymentDeps): NonNullable<PaymentDeps['wechat']> {
  if (!deps.wechat) throw new HttpError(503, 'WECHAT_PAY_UNAVAILABLE', '微信支付暂不可用，请使用余额支付');
  return deps.wechat;
}

/** JSAPI parameters for a prepay id; in sandbox mode with the cashier page to open outside WeChat. */
function jsapiFor(
  wechat: NonNullable<PaymentDeps['wechat']>,
  prepayId: string,
  returnPath: string,
): JsapiParams {
  const params = wechat.pay.jsapiParams(prepayId);
  const cashier =
    wechat.mode === 'sandbox' && wechat.sandbox ? wechat.sandbox.cashierUrl(params, returnPath) : undefined;
  return cashier ? { ...params, cashier_url: cashier } : { ...params };
}

/** A return path the client may ask for: same-origin and relative, else the default. */
export function safeReturnPath(p: unknown, fallback: string): string {
  return isSafeReturnPath(p) ? p : fallback;
}

/** Sends a committed session's start command; the scheduler retries any that this misses (crash, gateway error). */
function dispatchLater(deps: PaymentDeps, sessionId: number | undefined): void {
  if (sessionId === undefined || !deps.devices) return;
  deps.devices.dispatch(sessionId).catch((err: unknown) => {
    console.error(`dispatch of session ${sessionId} failed (the scheduler will retry):`, err);
  });
}

/** The answer to a repeated request with the same Idempotency-Key: the first order, as it is now. */
async function replay(deps: PaymentDeps, order: Order, returnPath: string): Promise<PayResponse> {
  const body: PayResponse = { order: orderSummary(order) };
  if (order.kind === 'consume') {
    const session = await usingSessionOf(deps.db, order);
    if (session) body.session = session;
  }
  if (order.method === 'wechat' && order.wechat_prepay_id && order.status === 'pending' && deps.wechat) {
    body.jsapi = jsapiFor(deps.wechat, order.wechat_prepay_id, returnPath);
  }
  return body;
}

async function findByKey(db: Db | Tx, memberId: number, key: string): Promise<Order | undefined> {
  const [o] = await db
    .select()
    .from(orders)
    .where(and(eq(orders.member_id, memberId), eq(orders.idempotency_key, key)));
  return o;
}

function sameRequest(o: Order, expect: Partial<Order>): void {
  for (const [k, v] of Object.entries(expect)) {
    if (o[k as keyof Order] !== v) {
      throw new HttpError(409, 'IDEMPOTENCY_KEY_REUSED', '该 Idempotency-Key 已用于另一笔不同的请求', {
        order_no: o.order_no,
      });
    }
  }
}

export const IdempotencyKeySchema = z
  .string()
  .trim()
  .min(1, 'Idempotency-Key 不能为空')
  .max(100, 'Idempotency-Key 最长 100 个字符')
  .regex(/^[\x21-\x7e]+$/, 'Idempotency-Key 只能包含可见 ASCII 字符');

/**
 * POST /backend/user/pay: pays for a device run. Wallet: debit + split + `starting` session in one transaction
 * (the member's wallet row is locked first, so concurrent pays of one member run one after another and the balance
 * decides), then the start command. WeChat: a pending order and a prepay; the money is booked only from a verified
 * notification or an order query (`applyWechatTransaction`).
 */
export async function payForDevice(
  deps: PaymentDeps,
  memberId: number,
  req: PayRequest,
  opts: { idempotencyKey?: string | undefined; returnPath?: string | undefined } = {},
): Promise<PayResponse> {
  const { db } = deps;
  const key = opts.idempotencyKey;
  const returnPath = safeReturnPath(
    opts.returnPath,
    `/user/pay?device_id=${req.device_id}&venue_id=${req.venue_id}`,
  );
  const expect = {
    kind: 'consume' as const,
    device_id: req.device_id,
    price_id: req.price_id,
    method: req.method,
  };
  if (key) {
    const first = await findByKey(db, memberId, key);
    if (first) {
      sameRequest(first, expect);
      return replay(deps, first, returnPath);
    }
  }

  const [device] = await db
    .select({
      id: devices.id,
      name: devices.name,
      venue_id: devices.venue_id,
      merchant_id: devices.merchant_id,
    })
    .from(devices)
    .where(eq(devices.id, req.device_id));
  if (!device) throw new HttpError(404, 'DEVICE_NOT_FOUND', '设备不存在');
  if (device.venue_id !== req.venue_id) {
    throw new HttpError(400, 'VENUE_MISMATCH', '场地与设备不符，请重新扫描设备上的二维码', {
      venue_id: req.venue_id,
      device_venue_id: device.venue_id,
    });
  }
  const [price] = await db.select().from(service_prices).where(eq(service_prices.id, req.price_id));
  if (price && price.venue_id !== device.venue_id)
    throw new HttpError(400, 'PRICE_OTHER_VENUE', '所选价格不属于本设备所在场地，请重新选择', {
      price_id: req.price_id,
    });
  if (!price || !price.active)
    throw new HttpError(400, 'PRICE_NOT_FOUND', '所选价格不存在或已下架，请重新选择', {
      price_id: req.price_id,
    });
  const [merchant] = await db
    .select({ status: merchants.status })
    .from(merchants)
    .where(eq(merchants.id, device.merchant_id));
  if (merchant?.status !== 'active') throw new HttpError(409, 'MERCHANT_DISABLED', '该商户已停止营业');
  if (req.method === 'wechat') {
    // (A wallet pay checks inside its transaction, under the wallet lock.)
    const available = await checkDeviceAvailable(db as unknown as Tx, device.id, deps.now());
    if (available !== 'ok') throw deviceRefusal(available);
  }

  const values = {
    order_no: newOrderNo('consume', deps.now()),
    kind: 'consume' as const,
    method: req.method,
    status: 'pending' as const,
    member_id: memberId,
    merchant_id: device.merchant_id,
    venue_id: device.venue_id,
    device_id: device.id,
    price_id: price.id,
    amount_fen: price.price_fen,
    minutes: price.minutes,
    idempotency_key: key ?? null,
    created_at: deps.now(),
  };

  if (req.method === 'wallet') {
    let result: { order: Order; sessionId: number } | { replayOf: Order };
    try {
      result = await db.transaction(async (tx) => {
        const wallet = await memberWallet(tx, memberId, device.merchant_id, { lock: true });
        if (key) {
          // A twin request with the same key may have committed while we waited for the wallet lock.
          const first = await findByKey(tx, memberId, key);
          if (first) return { replayOf: first };
        }
        const now = deps.now();
        const again = await checkDeviceAvailable(tx, device.id, now);
        if (again !== 'ok') throw deviceRefusal(again);
        const [order] = await tx.insert(orders).values(values).returning();
        if (!order) throw new Error('order not inserted');
        if (!(await settleWalletConsume(tx, order, wallet, now))) {
          throw new HttpError(409, 'INSUFFICIENT_BALANCE', '余额不足，请先充值或使用微信支付', {
            balance_fen: spendable(wallet),
            amount_fen: order.amount_fen,
          });
        }
        const session = await beginSession(tx, {
          order_id: order.id,
          device_id: device.id,
          member_id: memberId,
          minutes: price.minutes,
          now,
        });
        const [paid] = await tx.select().from(orders).where(eq(orders.id, order.id));
        return { order: paid ?? order, sessionId: session.id };
      });
    } catch (err) {
      if (key && isUniqueViolation(err)) {
        const first = await findByKey(db, memberId, key);
        if (first) {
          sameRequest(first, expect);
          return replay(deps, first, returnPath);
        }
      }
      if (isUniqueViolation(err)) throw deviceRefusal('busy');
      throw err;
    }
    if ('replayOf' in result) {
      sameRequest(result.replayOf, expect);
      return replay(deps, result.replayOf, returnPath);
    }
    dispatchLater(deps, result.sessionId);
    const session: UsingSession = {
      order_no: result.order.order_no,
      device_id: device.id,
      device_name: device.name,
      minutes: price.minutes,
      amount_fen: result.order.amount_fen,
      started_at: null,
      ends_at: null,
      status: 'starting',
    };
    return { order: orderSummary(result.order), session };
  }

  // WeChat Pay: the order waits for the payment; nothing moves until WeChat says it is paid.
  const wechat = requireWechat(deps);
  const [member] = await db.select({ openid: members.openid }).from(members).where(eq(members.id, memberId));
  if (!member) throw new HttpError(401, 'WECHAT_AUTH_REQUIRED', '需要微信授权');
  const order = await insertPending(deps, values, memberId, key);
  if ('replayOf' in order) {
    sameRequest(order.replayOf, expect);
    return replay(deps, order.replayOf, returnPath);
  }
  const jsapi = await prepay(
    deps,
    wechat,
    order.order,
    member.openid,
    `${device.name} ${price.name}`,
    returnPath,
  );
  return { order: orderSummary(order.order), jsapi };
}

async function insertPending(
  deps: PaymentDeps,
  values: typeof orders.$inferInsert,
  memberId: number,
  key: string | undefined,
): Promise<{ order: Order } | { replayOf: Order }> {
  try {
    const [order] = await deps.db.insert(orders).values(values).returning();
    if (!order) throw new Error('order not inserted');
    return { order };
  } catch (err) {
    if (key && isUniqueViolation(err)) {
      const first = await findByKey(deps.db, memberId, key);
      if (first) return { replayOf: first };
    }
    throw err;
  }
}

/** Asks WeChat for a prepay id; a failure closes the order (nothing was paid) and answers 502. */
async function prepay(
  deps: PaymentDeps,
  wechat: NonNullable<PaymentDeps['wechat']>,
  order: Order,
  openid: string,
  description: string,
  returnPath: string,
): Promise<JsapiParams> {
  let prepayId: string;
  try {
    const res = await wechat.pay.prepayJsapi({
      out_trade_no: order.order_no,
      description: description.slice(0, 120),
      amount_fen: order.amount_fen,
      openid,
      time_expire: new Date(deps.now().getTime() + PAY_WINDOW_MS),
    });
    prepayId = res.prepay_id;
  } catch (err) {
    console.error(`prepay of ${order.order_no} failed:`, err);
    await deps.db
      .update(orders)
      .set({ status: 'closed', failure_reason: '微信支付下单失败' })
      .where(and(eq(orders.id, order.id), eq(orders.status, 'pending')));
    throw new HttpError(502, 'WECHAT_PAY_ERROR', '微信支付下单失败，请稍后再试');
  }
  await deps.db.update(orders).set({ wechat_prepay_id: prepayId }).where(eq(orders.id, order.id));
  return jsapiFor(wechat, prepayId, returnPath);
}

/** How long a WeChat payment may take (time_expire of the prepay). */
export const PAY_WINDOW_MS = 15 * 60_000;

/**
 * POST /backend/user/recharge: a pending recharge order of a package (pay + bonus) and its prepay. The wallet is
 * credited only from the verified notification or an order query.
 */
export async function rechargePackage(
  deps: PaymentDeps,
  memberId: number,
  req: RechargeRequest,
  opts: { idempotencyKey?: string | undefined; returnPath?: string | undefined } = {},
): Promise<RechargeResponse | Omit<RechargeResponse, 'jsapi'>> {
  const key = opts.idempotencyKey;
  const returnPath = safeReturnPath(opts.returnPath, '/user/profile');
  const expect = { kind: 'recharge' as const, package_id: req.package_id, merchant_id: req.merchant_id };
  if (key) {
    const first = await findByKey(deps.db, memberId, key);
    if (first) {
      sameRequest(first, expect);
      const body = await replay(deps, first, returnPath);
      return { order: body.order, ...(body.jsapi ? { jsapi: body.jsapi } : {}) };
    }
  }
  const [pkg] = await deps.db
    .select()
    .from(packages)
    .where(
      and(
        eq(packages.id, req.package_id),
        eq(packages.merchant_id, req.merchant_id),
        eq(packages.active, true),
      ),
    );
  if (!pkg)
    throw new HttpError(400, 'PACKAGE_NOT_FOUND', '充值套餐不存在或已下架，请重新选择', {
      package_id: req.package_id,
    });
  const [merchant] = await deps.db
    .select({ status: merchants.status, name: merchants.name })
    .from(merchants)
    .where(eq(merchants.id, req.merchant_id));
  if (merchant?.status !== 'active') throw new HttpError(409, 'MERCHANT_DISABLED', '该商户已停止营业');
  const wechat = requireWechat(deps);
  const [member] = await deps.db
    .select({ openid: members.openid })
    .from(members)
    .where(eq(members.id, memberId));
  if (!member) throw new HttpError(401, 'WECHAT_AUTH_REQUIRED', '需要微信授权');
  const inserted = await insertPending(
    deps,
    {
      order_no: newOrderNo('recharge', deps.now()),
      kind: 'recharge',
      method: 'wechat',
      status: 'pending',
      member_id: memberId,
      merchant_id: req.merchant_id,
      package_id: pkg.id,
      amount_fen: pkg.pay_fen,
      bonus_fen: pkg.bonus_fen,
      idempotency_key: key ?? null,
      created_at: deps.now(),
    },
    memberId,
    key,
  );
  if ('replayOf' in inserted) {
    sameRequest(inserted.replayOf, expect);
    const body = await replay(deps, inserted.replayOf, returnPath);
    return { order: body.order, ...(body.jsapi ? { jsapi: body.jsapi } : {}) };
  }
  const jsapi = await prepay(
    deps,
    wechat,
    inserted.order,
    member.openid,
    `${merchant.name} 充值 ${pkg.name}`,
    returnPath,
  );
  return { order: orderSummary(inserted.order), jsapi };
}

/** A notification or query answer that does not match our order: refused, nothing changes. */
export class PaymentMismatchError extends Error {
  override readonly name = 'PaymentMismatchError';
}

export type ApplyResult = 'applied' | 'duplicate' | 'ignored';

/**
 * Books a WeChat transaction reported SUCCESS (from a verified notification or our own order query). Checks it
 * against the order (appid, mchid, amount, payer), deduplicates by out_trade_no in `pay_notifications` inside the
 * same transaction, then settles: a recharge credits the wallet; a consume is split and starts its device, or, when
 * the device can no longer start, is refunded in full to the member's wallet at once.
 */
export async function applyWechatTransaction(
  deps: PaymentDeps,
  t: Transaction,
  source: { notification_id: string },
): Promise<{ result: ApplyResult; order: Order | undefined }> {
  const wechat = requireWechat(deps);
  if (t.trade_state !== 'SUCCESS') return { result: 'ignored', order: undefined };
  let sessionId: number | undefined;
  const out = await deps.db.transaction(async (tx) => {
    const [order] = await tx.select().from(orders).where(eq(orders.order_no, t.out_trade_no)).for('update');
    if (!order) throw new PaymentMismatchError(`unknown out_trade_no ${t.out_trade_no}`);
    if (order.method !== 'wechat')
      throw new PaymentMismatchError(`order ${order.order_no} is not a WeChat order`);
    if (t.appid !== wechat.pay.appid || t.mchid !== wechat.pay.mchid) {
      throw new PaymentMismatchError(`appid/mchid ${t.appid}/${t.mchid} do not match`);
    }
    if (t.amount?.total !== order.amount_fen) {
      throw new PaymentMismatchError(`amount ${t.amount?.total} does not match order ${order.amount_fen}`);
    }
    if (order.member_id !== null) {
      const [m] = await tx
        .select({ openid: members.openid })
        .from(members)
        .where(eq(members.id, order.member_id));
      if (t.payer?.openid !== undefined && m && t.payer.openid !== m.openid) {
        throw new PaymentMismatchError(`payer ${t.payer.openid} is not the order's member`);
      }
    }
    const [first] = await tx
      .insert(pay_notifications)
      .values({
        notification_id: source.notification_id,
        out_trade_no: t.out_trade_no,
        transaction_id: t.transaction_id ?? null,
        received_at: deps.now(),
      })
      .onConflictDoNothing()
      .returning({ id: pay_notifications.id });
    if (!first || (order.status !== 'pending' && order.status !== 'closed')) {
      return { result: 'duplicate' as const, order };
    }
    const now = deps.now();
    // A closed order that WeChat still reports paid (prepay error, late payment) is booked the same way.
    await settleWechatPayment(
      tx,
      { ...order, status: 'pending' },
      { transaction_id: t.transaction_id ?? null, now },
    );
    if (order.kind === 'consume' && order.device_id !== null && order.minutes !== null) {
      const available = await checkDeviceAvailable(tx, order.device_id, now);
      if (available === 'ok') {
        try {
          const s = await beginSession(tx, {
            order_id: order.id,
            device_id: order.device_id,
            member_id: order.member_id,
            minutes: order.minutes,
            now,
          });
          sessionId = s.id;
        } catch (err) {
          if (!(err instanceof HttpError)) throw err;
        }
      }
      if (sessionId === undefined) {
        await refundOrder(tx, {
          order_id: order.id,
          amount_fen: order.amount_fen,
          reason: `设备${available === 'ok' ? '正在使用中' : '暂不可用'}，已全额退回余额`,
        });
      }
    }
    const [after] = await tx.select().from(orders).where(eq(orders.id, order.id));
    return { result: 'applied' as const, order: after };
  });
  dispatchLater(deps, sessionId);
  return out;
}

/** WeChat says the order was never paid and cannot be any more (closed, failed, or unpaid past the pay window). */
function isDeadPayment(t: Transaction | null, order: Order, now: Date): boolean {
  const expired = now.getTime() > order.created_at.getTime() + PAY_WINDOW_MS + 60_000;
  if (!t) return expired;
  if (t.trade_state === 'CLOSED' || t.trade_state === 'REVOKED' || t.trade_state === 'PAYERROR') return true;
  return t.trade_state === 'NOTPAY' && expired;
}

/** Least time between the end of one outbound WeChat order query for an order and the start of the next. */
export const ORDER_QUERY_INTERVAL_MS = 3000;
/** How long a claimed query may run (the WeChat Pay client's timeout): no second one starts meanwhile. */
const ORDER_QUERY_LEASE_MS = 10_000;

/**
 * Claims the right to ask WeChat about a pending order now: one row update that only one caller wins, whoever asks
 * and on whichever instance. `wechat_queried_at` holds "not before": the claim pushes it past the query's timeout
 * (so one query at most is in flight), and `releaseOrderQuery` sets it to the interval after the answer.
 */
async function claimOrderQuery(deps: PaymentDeps, orderId: number): Promise<boolean> {
  const now = deps.now();
  const [won] = await deps.db
    .update(orders)
    .set({ wechat_queried_at: new Date(now.getTime() + ORDER_QUERY_LEASE_MS) })
    .where(
      and(
        eq(orders.id, orderId),
        eq(orders.status, 'pending'),
        or(isNull(orders.wechat_queried_at), lte(orders.wechat_queried_at, now)),
      ),
    )
    .returning({ id: orders.id });
  return won !== undefined;
}

async function releaseOrderQuery(deps: PaymentDeps, orderId: number): Promise<void> {
  await deps.db
    .update(orders)
    .set({ wechat_queried_at: new Date(deps.now().getTime() + ORDER_QUERY_INTERVAL_MS) })
    .where(eq(orders.id, orderId));
}

/**
 * GET /backend/api/query: the order's status for the pay page's polling. A pending WeChat order is checked with
 * WeChat's order query, and a SUCCESS is booked exactly as a notification would be (so a late notification does
 * not keep the member waiting).
 */
export async function queryOrder(deps: PaymentDeps, orderNo: string): Promise<OrderStatus> {
  const [order] = await deps.db.select().from(orders).where(eq(orders.order_no, orderNo));
  if (!order) throw new HttpError(404, 'ORDER_NOT_FOUND', '订单不存在');
  let current: Order = order;
  if (
    order.status === 'pending' &&
    order.method === 'wechat' &&
    order.wechat_prepay_id &&
    deps.wechat &&
    (await claimOrderQuery(deps, order.id))
  ) {
    try {
      const t = await deps.wechat.pay.queryByOutTradeNo(order.order_no);
      if (t && t.trade_state === 'SUCCESS') {
        const res = await applyWechatTransaction(deps, t, {
          notification_id: `query:${t.transaction_id ?? ''}`,
        });
        if (res.order) current = res.order;
        else {
          const [again] = await deps.db.select().from(orders).where(eq(orders.id, order.id));
          if (again) current = again;
        }
      } else if (isDeadPayment(t, order, deps.now())) {
        // Never paid and never will be: close it (a late SUCCESS would still be booked, see applyWechatTransaction).
        const [closed] = await deps.db
          .update(orders)
          .set({ status: 'closed', failure_reason: '支付未完成，订单已关闭' })
          .where(and(eq(orders.id, order.id), eq(orders.status, 'pending')))
          .returning();
        if (closed) current = closed;
      }
    } catch (err) {
      // WeChat unreachable or the answer does not match: the status stays as it is; the notification may still come.
      console.error(`order query for ${order.order_no} failed:`, err);
    } finally {
      await releaseOrderQuery(deps, order.id);
    }
  }
  return {
    order_no: current.order_no,
    kind: current.kind,
    status: current.status,
    amount_fen: current.amount_fen,
  };
}
