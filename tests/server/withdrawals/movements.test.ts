/**
 * The withdrawal movements on the real database: freeze takes from available into frozen, unfreeze gives it back,
 * payout sends frozen money out; a freeze above what is available is refused and changes nothing; the ledger
 * invariants hold afterwards. Twenty concurrent freezes against a balance covering three: exactly three succeed.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../server/db/client';
import { merchants, wallets } from '../../../server/db/schema';
import { externalWallet, merchantWallet, postTransaction } from '../../../server/services/ledger';
import {
  freezeForWithdrawal,
  payOutWithdrawal,
  unfreezeWithdrawal,
} from '../../../server/services/withdrawals/movements';
import { assertLedgerInvariants } from '../money/invariants';
import { createTestDb } from '../test-db';

let database: Awaited<ReturnType<typeof createTestDb>>;
let db: Db;
beforeAll(async () => {
  database = await createTestDb();
  db = database.db;
});
afterAll(async () => {
  await database?.close();
});

async function fundedWallet(fen: number): Promise<number> {
  const [m] = await db
    .insert(merchants)
    .values({ name: `提现商户${Math.random()}` })
    .returning();
  return db.transaction(async (tx) => {
    const w = await merchantWallet(tx, m!.id);
    const cash = await externalWallet(tx, 'cash');
    await postTransaction(tx, {
      kind: 'test_credit',
      entries: [
        { wallet_id: cash.id, bucket: 'principal', amount_fen: -fen },
        { wallet_id: w.id, bucket: 'principal', amount_fen: fen },
      ],
    });
    return w.id;
  });
}

async function balance(id: number) {
  const [w] = await db.select().from(wallets).where(eq(wallets.id, id));
  return { available: w!.principal_fen, frozen: w!.frozen_fen };
}

describe('withdrawal movements', () => {
  it('freeze, unfreeze and pay out move the buckets and keep the invariants', async () => {
    const id = await fundedWallet(10_000);
    await db.transaction((tx) => freezeForWithdrawal(tx, { wallet_id: id, amount_fen: 3_000 }));
    expect(await balance(id)).toEqual({ available: 7_000, frozen: 3_000 });
    await db.transaction((tx) => unfreezeWithdrawal(tx, { wallet_id: id, amount_fen: 1_000 }));
    expect(await balance(id)).toEqual({ available: 8_000, frozen: 2_000 });
    await db.transaction((tx) => payOutWithdrawal(tx, { wallet_id: id, amount_fen: 2_000 }));
    expect(await balance(id)).toEqual({ available: 8_000, frozen: 0 });
    await assertLedgerInvariants(db);
  });

  it('a freeze above what is available is refused and changes nothing', async () => {
    const id = await fundedWallet(500);
    await expect(
      db.transaction((tx) => freezeForWithdrawal(tx, { wallet_id: id, amount_fen: 501 })),
    ).rejects.toThrow();
    expect(await balance(id)).toEqual({ available: 500, frozen: 0 });
    await assertLedgerInvariants(db);
  });

  it('20 concurrent freezes of 100 against 300: exactly 3 succeed', async () => {
    const id = await fundedWallet(300);
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () =>
        db.transaction((tx) => freezeForWithdrawal(tx, { wallet_id: id, amount_fen: 100 })),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    expect(await balance(id)).toEqual({ available: 0, frozen: 300 });
    await assertLedgerInvariants(db);
  });
});
