/**
 * The double-entry ledger (docs/decisions.md D5, docs/money.md): the only code that writes a wallet balance. Every
 * movement is one `ledger_transactions` row whose entries sum to zero; each entry changes one bucket (principal,
 * cash principal, bonus, frozen) of one wallet, and the wallet row is updated in the same DB transaction. The CHECK
 * constraint on `wallets` refuses a negative balance of any non-external wallet (except a merchant's settlement
 * principal, a debt: docs/decisions.md D18), so an overdraft aborts the whole movement.
 */
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Db, Tx } from '../db/client';
import { type Params, prebuilt, prebuiltSql } from '../db/prebuilt';
import { wallets } from '../db/schema';

/** `cash_principal`: a member's principal paid in cash (docs/decisions.md D18); `principal` elsewhere. */
export type Bucket = 'principal' | 'cash_principal' | 'bonus' | 'frozen';
export type Wallet = typeof wallets.$inferSelect;

/** Kinds of ledger transactions written by the money code (reports group by them). */
export type LedgerKind = 'recharge' | 'consume' | 'refund' | (string & {});

/**
 * External wallets: money outside the system. They may go negative (that is the money that came in). `cash`: cash
 * taken at a merchant's counter; `till`: cash that became the merchant's own takings when it was spent (it stays in
 * the merchant's till, docs/decisions.md D18).
 */
export type ExternalCode = 'wechat' | 'cash' | 'till' | 'promotion' | 'payout';

export interface Entry {
  wallet_id: number;
  bucket: Bucket;
  /** Signed fen: positive credits the bucket, negative debits it. */
  amount_fen: number;
}

export interface PostInput {
  kind: LedgerKind;
  order_id?: number | null;
  withdrawal_id?: number | null;
  memo?: string;
  entries: Entry[];
}

/** A movement that does not balance or is not whole fen: a programming error, never user input. */
export class LedgerError extends Error {
  override readonly name = 'LedgerError';
}

/**
 * Merges entries per (wallet, bucket), drops zeros and sorts them by wallet id; refuses (LedgerError) a movement
 * that is not whole fen, does not sum to zero or moves nothing.
 */
export function balancedEntries(input: PostInput): Entry[] {
  const merged = new Map<string, Entry>();
  for (const e of input.entries) {
    if (!Number.isSafeInteger(e.amount_fen)) throw new LedgerError(`not whole fen: ${e.amount_fen}`);
    const key = `${e.wallet_id}:${e.bucket}`;
    const prev = merged.get(key);
    merged.set(key, { ...e, amount_fen: (prev?.amount_fen ?? 0) + e.amount_fen });
  }
  const entries = [...merged.values()]
    .filter((e) => e.amount_fen !== 0)
    .sort((a, b) => a.wallet_id - b.wallet_id || a.bucket.localeCompare(b.bucket));
  const sum = entries.reduce((s, e) => s + e.amount_fen, 0);
  if (sum !== 0) throw new LedgerError(`ledger transaction ${input.kind} does not balance: ${sum}`);
  if (entries.length === 0) throw new LedgerError(`ledger transaction ${input.kind} moves nothing`);
  return entries;
}

/** A movement's entries and per-wallet balance changes, as the arrays its statement takes. */
export interface MovementArrays {
  entry_wallets: number[];
  entry_buckets: string[];
  entry_amounts: number[];
  wallets: number[];
  principal: number[];
  cash_principal: number[];
  bonus: number[];
  frozen: number[];
}

/** The arrays of a balanced movement (`balancedEntries`): its entries, and the balance changes merged per wallet. */
export function movementArrays(input: PostInput): MovementArrays {
  const entries = balancedEntries(input);
  const perWallet = new Map<number, Record<Bucket, number>>();
  for (const e of entries) {
    const w = perWallet.get(e.wallet_id) ?? { principal: 0, cash_principal: 0, bonus: 0, frozen: 0 };
    w[e.bucket] += e.amount_fen;
    perWallet.set(e.wallet_id, w);
  }
  const deltas = [...perWallet.values()];
  return {
    entry_wallets: entries.map((e) => e.wallet_id),
    entry_buckets: entries.map((e) => e.bucket),
    entry_amounts: entries.map((e) => e.amount_fen),
    wallets: [...perWallet.keys()],
    principal: deltas.map((d) => d.principal),
    cash_principal: deltas.map((d) => d.cash_principal),
    bonus: deltas.map((d) => d.bonus),
    frozen: deltas.map((d) => d.frozen),
  };
}

/**
 * The part of a movement's statement after its transaction row (a CTE `t` the caller writes before it): the entries
 * (`e`) and the balances, one row per wallet, all buckets at once (`u`). The wallet rows are locked in id order before
 * any is changed (`l`, forced first by the one-time filter), so concurrent movements never deadlock; callers that
 * lock a member's wallet first and post last hold the shared wallets' locks only until their commit. No row in `t`:
 * nothing is written or locked.
 */
export const movementAfter = (p: Params<MovementArrays>) => sql`
    e as (
      insert into ledger_entries (transaction_id, wallet_id, bucket, amount_fen)
      select t.id, v.w, v.b, v.a
      from t, unnest(${p.entry_wallets}::int[], ${p.entry_buckets}::text[], ${p.entry_amounts}::bigint[]) as v(w, b, a)),
    l as (
      select id from wallets where id = any(${p.wallets}::int[]) and exists (select 1 from t)
      order by id for no key update),
    u as (
      update wallets set principal_fen = wallets.principal_fen + d.p,
        cash_principal_fen = wallets.cash_principal_fen + d.c, bonus_fen = wallets.bonus_fen + d.b,
        frozen_fen = wallets.frozen_fen + d.f
      from unnest(${p.wallets}::int[], ${p.principal}::bigint[], ${p.cash_principal}::bigint[], ${p.bonus}::bigint[],
        ${p.frozen}::bigint[]) as d(id, p, c, b, f)
      where wallets.id = d.id and (select count(*) from l) > 0)`;

/**
 * One balanced movement in ONE statement (docs/performance.md): the transaction row, then `movementAfter`. Entries
 * and balance changes arrive as arrays, so the text is the same for every movement: built once
 * (server/db/prebuilt.ts), prepared once per connection.
 */
const postMovement = prebuiltSql<
  { kind: string; order_id: number | null; withdrawal_id: number | null; memo: string } & MovementArrays,
  { id: number }
>(
  (p) => sql`
    with t as (
      insert into ledger_transactions (kind, order_id, withdrawal_id, memo)
      values (${p.kind}::text, ${p.order_id}::int, ${p.withdrawal_id}::int, ${p.memo}::text)
      returning id),
    ${movementAfter(p)}
    select id from t`,
);

/** Writes one balanced movement (see `postMovement`). Returns the transaction id. */
export async function postTransaction(tx: Tx, input: PostInput): Promise<number> {
  const [row] = await postMovement(tx, {
    kind: input.kind,
    order_id: input.order_id ?? null,
    withdrawal_id: input.withdrawal_id ?? null,
    memo: input.memo ?? '',
    ...movementArrays(input),
  });
  if (row === undefined) throw new LedgerError('ledger transaction not inserted');
  return row.id;
}

// ---------------------------------------------------------------- finding (or opening) wallets

async function firstWallet(
  tx: Tx,
  where: ReturnType<typeof and>,
  lock: boolean,
): Promise<Wallet | undefined> {
  const q = tx.select().from(wallets).where(where).orderBy(asc(wallets.id)).limit(1);
  const rows = lock ? await q.for('update') : await q;
  return rows[0];
}

/** Finds the wallet, locked (FOR UPDATE) or not. */
type FindWallet = (lock: boolean) => Promise<Wallet | undefined>;
const findBy =
  (tx: Tx, w: ReturnType<typeof and>): FindWallet =>
  (lock) =>
    firstWallet(tx, w, lock);

/**
 * Get-or-create: concurrent callers both insert with ON CONFLICT DO NOTHING (the partial unique indexes make the
 * second one a no-op once the first commits), then read the one row.
 */
async function getOrCreate(
  tx: Tx,
  find: FindWallet,
  values: typeof wallets.$inferInsert,
  lock = false,
): Promise<Wallet> {
  const found = await find(lock);
  if (found) return found;
  await tx.insert(wallets).values(values).onConflictDoNothing();
  const created = await find(lock);
  if (!created) throw new LedgerError(`wallet could not be opened: ${JSON.stringify(values)}`);
  return created;
}

/**
 * `kind = '<kind>'` as a literal, not a parameter. The unique indexes on wallets are partial (`where kind =
 * 'member'`, ...), and a generic plan, which PostgreSQL keeps for a prepared statement, cannot use such an index for
 * `kind = $1`: every execution was planned anew (docs/performance.md, "Plans kept"). The kind comes from a closed
 * union of identifiers, never from input.
 */
export const walletKind = (kind: Wallet['kind']) => sql`${wallets.kind} = ${sql.raw(`'${kind}'`)}`;

const memberWalletOf = (d: Db, p: Params<{ member: number; merchant: number }>) =>
  d
    .select()
    .from(wallets)
    .where(and(walletKind('member'), eq(wallets.member_id, p.member), eq(wallets.merchant_id, p.merchant)))
    .orderBy(asc(wallets.id))
    .limit(1);
/** Every recharge and pay finds the member's wallet: both forms built once (server/db/prebuilt.ts). */
const memberWalletRow = prebuilt(memberWalletOf);
const memberWalletLocked = prebuilt((d, p: Params<{ member: number; merchant: number }>) =>
  memberWalletOf(d, p).for('update'),
);

/** A member's wallet at one merchant (opened with zero balance on first use). `lock` takes a row lock (FOR UPDATE). */
export function memberWallet(tx: Tx, memberId: number, merchantId: number, opts: { lock?: boolean } = {}) {
  const p = { member: memberId, merchant: merchantId };
  return getOrCreate(
    tx,
    async (lock) => (await (lock ? memberWalletLocked(tx, p) : memberWalletRow(tx, p)))[0],
    { kind: 'member', member_id: memberId, merchant_id: merchantId },
    opts.lock ?? false,
  );
}

/**
 * The merchant's settlement wallet: online income after platform fee and partner shares, less the fee and shares
 * owed on cash principal spent; may run negative (docs/decisions.md D18).
 */
export function merchantWallet(tx: Tx, merchantId: number) {
  return getOrCreate(tx, findBy(tx, and(walletKind('merchant'), eq(wallets.merchant_id, merchantId))), {
    kind: 'merchant',
    merchant_id: merchantId,
  });
}

/** A partner account's share-income wallet. */
export function partnerWallet(tx: Tx, accountId: number, merchantId: number | null) {
  return getOrCreate(tx, findBy(tx, and(walletKind('partner'), eq(wallets.account_id, accountId))), {
    kind: 'partner',
    account_id: accountId,
    merchant_id: merchantId,
  });
}

/** The platform's fee-income wallet (one; the seed may have opened it under any code). */
export async function platformWallet(tx: Tx): Promise<Wallet> {
  const found = await firstWallet(tx, walletKind('platform'), false);
  if (found) return found;
  return getOrCreate(tx, findBy(tx, walletKind('platform')), {
    kind: 'platform',
    code: 'platform',
  });
}

/** An external wallet by code (wechat, cash, till, promotion, payout). */
export function externalWallet(tx: Tx, code: ExternalCode) {
  return getOrCreate(tx, findBy(tx, and(walletKind('external'), eq(wallets.code, code))), {
    kind: 'external',
    code,
  });
}

/**
 * Several external wallets' ids in one statement (the base data opens them all; one missing is opened here). The
 * first by id per code, as `externalWallet` finds it.
 */
export async function externalWalletIds<C extends ExternalCode>(
  tx: Tx,
  codes: readonly C[],
): Promise<Record<C, number>> {
  const rows = await tx
    .select({ id: wallets.id, code: wallets.code })
    .from(wallets)
    .where(and(walletKind('external'), inArray(wallets.code, [...codes])))
    .orderBy(asc(wallets.id));
  const out = {} as Record<C, number>;
  for (const r of rows) if (out[r.code as C] === undefined) out[r.code as C] = r.id;
  for (const c of codes) if (out[c] === undefined) out[c] = (await externalWallet(tx, c)).id;
  return out;
}

/** Principal (online and cash) plus bonus: what the member can spend. */
export function spendable(w: Pick<Wallet, 'principal_fen' | 'cash_principal_fen' | 'bonus_fen'>): number {
  return w.principal_fen + w.cash_principal_fen + w.bonus_fen;
}
