/**
 * The double-entry ledger (docs/decisions.md D5, docs/money.md): the only code that writes a wallet balance. Every
 * movement is one `ledger_transactions` row whose entries sum to zero; each entry changes one bucket (principal,
 * cash principal, bonus, frozen) of one wallet, and the wallet row is updated in the same DB transaction. The CHECK
 * constraint on `wallets` refuses a negative balance of any non-external wallet (except a merchant's settlement
 * principal, a debt: docs/decisions.md D18), so an overdraft aborts the whole movement.
 */
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Tx } from '../db/client';
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

/**
 * Writes one balanced movement in ONE statement (docs/performance.md): the transaction row, its entries, and the
 * balances (one row per wallet, all buckets at once). The wallet rows are locked in id order before any is changed
 * (`l`, forced first by the one-time filter), so concurrent movements never deadlock; callers that lock a member's
 * wallet first and post last hold the shared wallets' locks only until their commit. Returns the transaction id.
 */
export async function postTransaction(tx: Tx, input: PostInput): Promise<number> {
  const entries = balancedEntries(input);
  const perWallet = new Map<number, Record<Bucket, number>>();
  for (const e of entries) {
    const w = perWallet.get(e.wallet_id) ?? { principal: 0, cash_principal: 0, bonus: 0, frozen: 0 };
    w[e.bucket] += e.amount_fen;
    perWallet.set(e.wallet_id, w);
  }
  const rows = sql.join(
    entries.map((e) => sql`(${e.wallet_id}::int, ${e.bucket}::text, ${e.amount_fen}::bigint)`),
    sql`, `,
  );
  const deltas = sql.join(
    [...perWallet].map(
      ([id, d]) =>
        sql`(${id}::int, ${d.principal}::bigint, ${d.cash_principal}::bigint, ${d.bonus}::bigint, ${d.frozen}::bigint)`,
    ),
    sql`, `,
  );
  const ids = sql.join(
    [...perWallet.keys()].map((id) => sql`${id}::int`),
    sql`, `,
  );
  const res = (await tx.execute(sql`
    with t as (
      insert into ledger_transactions (kind, order_id, withdrawal_id, memo)
      values (${input.kind}::text, ${input.order_id ?? null}::int, ${input.withdrawal_id ?? null}::int,
        ${input.memo ?? ''}::text)
      returning id),
    e as (
      insert into ledger_entries (transaction_id, wallet_id, bucket, amount_fen)
      select t.id, v.w, v.b, v.a from t, (values ${rows}) as v(w, b, a)),
    l as (select id from wallets where id in (${ids}) order by id for no key update),
    u as (
      update wallets set principal_fen = wallets.principal_fen + d.p,
        cash_principal_fen = wallets.cash_principal_fen + d.c, bonus_fen = wallets.bonus_fen + d.b,
        frozen_fen = wallets.frozen_fen + d.f
      from (values ${deltas}) as d(id, p, c, b, f)
      where wallets.id = d.id and (select count(*) from l) > 0)
    select id from t`)) as unknown as { rows: { id: number }[] };
  const id = res.rows[0]?.id;
  if (id === undefined) throw new LedgerError('ledger transaction not inserted');
  return id;
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

/**
 * Get-or-create: concurrent callers both insert with ON CONFLICT DO NOTHING (the partial unique indexes make the
 * second one a no-op once the first commits), then read the one row.
 */
async function getOrCreate(
  tx: Tx,
  where: ReturnType<typeof and>,
  values: typeof wallets.$inferInsert,
  lock = false,
): Promise<Wallet> {
  const found = await firstWallet(tx, where, lock);
  if (found) return found;
  await tx.insert(wallets).values(values).onConflictDoNothing();
  const created = await firstWallet(tx, where, lock);
  if (!created) throw new LedgerError(`wallet could not be opened: ${JSON.stringify(values)}`);
  return created;
}

/** A member's wallet at one merchant (opened with zero balance on first use). `lock` takes a row lock (FOR UPDATE). */
export function memberWallet(tx: Tx, memberId: number, merchantId: number, opts: { lock?: boolean } = {}) {
  return getOrCreate(
    tx,
    and(eq(wallets.kind, 'member'), eq(wallets.member_id, memberId), eq(wallets.merchant_id, merchantId)),
    { kind: 'member', member_id: memberId, merchant_id: merchantId },
    opts.lock ?? false,
  );
}

/**
 * The merchant's settlement wallet: online income after platform fee and partner shares, less the fee and shares
 * owed on cash principal spent; may run negative (docs/decisions.md D18).
 */
export function merchantWallet(tx: Tx, merchantId: number) {
  return getOrCreate(tx, and(eq(wallets.kind, 'merchant'), eq(wallets.merchant_id, merchantId)), {
    kind: 'merchant',
    merchant_id: merchantId,
  });
}

/** A partner account's share-income wallet. */
export function partnerWallet(tx: Tx, accountId: number, merchantId: number | null) {
  return getOrCreate(tx, and(eq(wallets.kind, 'partner'), eq(wallets.account_id, accountId)), {
    kind: 'partner',
    account_id: accountId,
    merchant_id: merchantId,
  });
}

/** The platform's fee-income wallet (one; the seed may have opened it under any code). */
export async function platformWallet(tx: Tx): Promise<Wallet> {
  const found = await firstWallet(tx, and(eq(wallets.kind, 'platform')), false);
  if (found) return found;
  return getOrCreate(tx, and(eq(wallets.kind, 'platform')), { kind: 'platform', code: 'platform' });
}

/** An external wallet by code (wechat, cash, till, promotion, payout). */
export function externalWallet(tx: Tx, code: ExternalCode) {
  return getOrCreate(tx, and(eq(wallets.kind, 'external'), eq(wallets.code, code)), {
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
    .where(and(eq(wallets.kind, 'external'), inArray(wallets.code, [...codes])))
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
