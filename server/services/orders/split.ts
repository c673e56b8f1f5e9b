/**
 * The split of real money at payment: platform fee, partner shares by rule, the rest to the merchant (docs/money.md);
 * for the cash part, the merchant's rest is what it already holds in its till (docs/decisions.md D18). A disabled
 * partner's rules share nothing: that part stays with the merchant (docs/decisions.md D19).
 */
import { and, eq } from 'drizzle-orm';
import { proRata } from '../../../src/domain/money';
import type { Tx } from '../../db/client';
import { accounts, merchants, share_rules } from '../../db/schema';
import { type Entry, externalWallet, merchantWallet, partnerWallet, platformWallet } from '../ledger';
import { type Order, OrderMoneyError } from './order';

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
export async function splitCredits(tx: Tx, order: Order, principalFen: number): Promise<Entry[]> {
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
          .innerJoin(accounts, eq(accounts.id, share_rules.partner_account_id))
          .where(
            and(
              eq(share_rules.venue_id, order.venue_id),
              eq(share_rules.merchant_id, order.merchant_id),
              eq(accounts.status, 'active'),
            ),
          );
  const split = computeSplit(principalFen, merchant.fee_rate_bp, rules);
  const partners = new Map<number, number>();
  for (const s of split.shares) {
    partners.set(s.account_id, (await partnerWallet(tx, s.account_id, order.merchant_id)).id);
  }
  return splitEntries(split, {
    platform: split.fee_fen > 0 ? (await platformWallet(tx)).id : 0,
    merchant: split.merchant_fen > 0 ? (await merchantWallet(tx, order.merchant_id)).id : 0,
    partners,
  });
}

/** The wallets a split credits: the platform's, the merchant's settlement wallet, each partner account's. */
export interface SplitWallets {
  platform: number;
  merchant: number;
  partners: Map<number, number>;
}

/** Ledger credits for a computed split (principal buckets), onto wallets already found. */
export function splitEntries(split: Split, w: SplitWallets): Entry[] {
  const entries: Entry[] = [];
  if (split.fee_fen > 0)
    entries.push({ wallet_id: w.platform, bucket: 'principal', amount_fen: split.fee_fen });
  for (const s of split.shares) {
    const id = w.partners.get(s.account_id);
    if (id === undefined) throw new OrderMoneyError(`no wallet for partner account ${s.account_id}`);
    entries.push({ wallet_id: id, bucket: 'principal', amount_fen: s.amount_fen });
  }
  if (split.merchant_fen > 0)
    entries.push({ wallet_id: w.merchant, bucket: 'principal', amount_fen: split.merchant_fen });
  return entries;
}

/**
 * The cash part `cashFen` of a split consumption (docs/decisions.md D18): the merchant already holds that cash, so
 * it leaves the system as the merchant's own takings (external `till`) and is taken back out of the merchant's part
 * of the split. With `splitCredits` over the whole principal, the settlement wallet nets `merchant part - cash`:
 * the platform fee and partner shares of the cash part are charged to it, and it may run negative (a debt).
 */
export async function cashPartEntries(tx: Tx, order: Order, cashFen: number): Promise<Entry[]> {
  if (cashFen === 0) return [];
  const till = await externalWallet(tx, 'till');
  const merchant = await merchantWallet(tx, order.merchant_id);
  return [
    { wallet_id: till.id, bucket: 'principal', amount_fen: cashFen },
    { wallet_id: merchant.id, bucket: 'principal', amount_fen: -cashFen },
  ];
}

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
