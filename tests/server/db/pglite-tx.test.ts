/**
 * PGlite transactions whose BEGIN goes with the first statement (server/db/pglite-tx.ts): the calls into the engine
 * it saves, and the semantics of PGlite's own `transaction()` kept: what commits, what rolls back (a failing first
 * statement, a failing function, an explicit rollback, a value that cannot be sent), savepoints, `exec` and `sql`,
 * and a handle refused once its transaction is over. The COMMIT sent with an armed last statement is tested with the
 * node-postgres path in commit-with-last.test.ts.
 */
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oneCallTransaction } from '../../../server/db/pglite-tx';

let pg: PGlite;
let transaction: ReturnType<typeof oneCallTransaction>;
let calls = 0;

beforeAll(async () => {
  pg = new PGlite();
  await pg.waitReady;
  await pg.exec('create table t (n int primary key)');
  transaction = oneCallTransaction(pg);
  const exec = pg.execProtocolStream.bind(pg);
  pg.execProtocolStream = ((...args: Parameters<typeof exec>) => {
    calls++;
    return exec(...args);
  }) as typeof exec;
}, 60_000);
afterAll(() => pg?.close());

const ns = async () => (await pg.query<{ n: number }>('select n from t order by n')).rows.map((r) => r.n);
const insert = (tx: Transaction, n: unknown) => tx.query('insert into t (n) values ($1)', [n]);

/** Runs `fn` in a transaction; the calls into the engine it made, and its error if it failed. */
async function counted(fn: (tx: Transaction) => Promise<unknown>) {
  const before = calls;
  const err = await transaction(fn).then(
    () => undefined,
    (e: unknown) => e as Error & { code?: string },
  );
  return { calls: calls - before, err };
}

describe('PGlite transactions, BEGIN with the first statement', () => {
  it('sends BEGIN with the first statement and COMMIT on its own: one call fewer than statements plus two', async () => {
    const r = await counted(async (tx) => {
      await insert(tx, 1);
      await insert(tx, 2);
    });
    expect(r).toEqual({ calls: 3, err: undefined });
    expect(await ns()).toEqual([1, 2]);
  });

  it('sends nothing for a transaction without statements', async () => {
    expect(await counted(async () => 'nothing')).toEqual({ calls: 0, err: undefined });
    await expect(transaction(async () => 'answer')).resolves.toBe('answer');
  });

  it('rolls back when the first statement fails (its BEGIN had run), the engine still usable', async () => {
    const r = await counted(async (tx) => {
      await insert(tx, 1);
    });
    expect(r.err).toMatchObject({ code: '23505' });
    // BEGIN and the statement, then ROLLBACK.
    expect(r.calls).toBe(2);
    expect((await pg.query<{ s: string }>('select 1 as s')).rows).toEqual([{ s: 1 }]);
    await transaction(async (tx) => insert(tx, 3));
    expect(await ns()).toEqual([1, 2, 3]);
  });

  it('rolls back when the function fails after its statements', async () => {
    const err = await transaction(async (tx) => {
      await insert(tx, 4);
      throw new Error('refused');
    }).catch((e: unknown) => e as Error);
    expect(err.message).toBe('refused');
    expect(await ns()).toEqual([1, 2, 3]);
  });

  it('rolls back on rollback(), and refuses the handle afterwards', async () => {
    let handle: Transaction | undefined;
    await transaction(async (tx) => {
      handle = tx;
      await insert(tx, 5);
      await tx.rollback();
      expect(tx.closed).toBe(true);
      await expect(insert(tx, 6)).rejects.toThrow('Transaction is closed');
    });
    expect(await ns()).toEqual([1, 2, 3]);
    await expect(insert(handle!, 7)).rejects.toThrow('Transaction is closed');
  });

  it('begins with the next statement when a value could not be sent, so it still runs inside the transaction', async () => {
    const unsendable = {
      toPostgres: () => {
        throw new Error('no wire form');
      },
    };
    const err = await transaction(async (tx) => {
      await expect(insert(tx, unsendable)).rejects.toThrow('no wire form');
      await insert(tx, 8);
      throw new Error('undo');
    }).catch((e: unknown) => e as Error);
    expect(err.message).toBe('undo');
    // Had 8 run outside the transaction, it would have stayed.
    expect(await ns()).toEqual([1, 2, 3]);
  });

  it('keeps savepoints, exec and sql within the transaction', async () => {
    await transaction(async (tx) => {
      await tx.exec('insert into t (n) values (10); savepoint a');
      await insert(tx, 11);
      await tx.query('rollback to savepoint a');
      const r = await tx.sql<{ n: number }>`select n from t where n >= ${10} order by n`;
      expect(r.rows).toEqual([{ n: 10 }]);
    });
    expect(await ns()).toEqual([1, 2, 3, 10]);
    const err = await transaction(async (tx) => {
      await tx.exec('insert into t (n) values (12)');
      throw new Error('undo');
    }).catch((e: unknown) => e as Error);
    expect(err.message).toBe('undo');
    expect(await ns()).toEqual([1, 2, 3, 10]);
  });

  it('ends the transaction after statements still waiting when the function settles', async () => {
    const unsendable = {
      toPostgres: () => {
        throw new Error('no wire form');
      },
    };
    const err = await transaction(async (tx) => {
      await Promise.all([insert(tx, unsendable), insert(tx, 20)]);
    }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err?.message).toBe('no wire form');
    expect((pg as unknown as { isInTransaction(): boolean }).isInTransaction()).toBe(false);
    expect(await ns()).toEqual([1, 2, 3, 10]);
  });
});
