/**
 * A transaction's last statement sent with its COMMIT (server/db/commit-with-last.ts), through the server's own
 * database setup (openDatabase). On PostgreSQL (TEST_DATABASE_URL): one round trip fewer, committed when the
 * statement's answer arrives; a failing statement or a failing COMMIT leaves nothing; a statement after it is refused;
 * the connection serves the next transaction as usual. The same on PGlite (server/db/pglite-tx.ts), where it is one call
 * into the engine fewer, as BEGIN, going with the first statement, is another.
 */
import { randomBytes } from 'node:crypto';
import type { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database, Tx } from '../../../server/db/client';
import { lastStatementCommits } from '../../../server/db/commit-with-last';
import { createTestDb } from '../test-db';

let database: Database;
const table = sql.raw(`cwl_${randomBytes(4).toString('hex')}`);

beforeAll(async () => {
  database = await createTestDb();
  // `b` is unique at COMMIT only: a duplicate fails the COMMIT, not the statement.
  await database.db.execute(
    sql`create table ${table} (a int primary key, b int, unique (b) deferrable initially deferred)`,
  );
  await database.db.execute(sql`insert into ${table} (a, b) values (1, 1)`);
}, 120_000);
afterAll(() => database?.close());

type Row = { a: number };
const rows = async (): Promise<number[]> => {
  const r = (await database.db.execute(sql`select a from ${table} order by a`)) as unknown as { rows: Row[] };
  return r.rows.map((x) => Number(x.a));
};
const insert = (tx: Tx, a: number, b: number) =>
  tx.execute(sql`insert into ${table} (a, b) values (${a}::int, ${b}::int) returning a`);

/**
 * Counts the answers (ReadyForQuery) the transaction's connection receives, its BEGIN and COMMIT included; on PGlite,
 * the calls into the engine.
 */
async function roundTrips(fn: (tx: Tx) => Promise<void>): Promise<number> {
  let n = 0;
  const count = () => n++;
  if (database.kind === 'pglite') {
    const pg = (database.db as unknown as { $client: PGlite }).$client;
    const exec = pg.execProtocolStream.bind(pg);
    pg.execProtocolStream = ((...args: Parameters<typeof exec>) => {
      count();
      return exec(...args);
    }) as typeof exec;
    try {
      await database.db.transaction(fn);
    } finally {
      pg.execProtocolStream = exec;
    }
    return n;
  }
  let connection: NodeJS.EventEmitter | undefined;
  await database.db.transaction(async (tx) => {
    connection = (tx._.session as unknown as { client: { connection: NodeJS.EventEmitter } }).client
      .connection;
    connection.on('readyForQuery', count);
    await fn(tx);
  });
  connection?.off('readyForQuery', count);
  return n;
}

/** The error's SQLSTATE or message, wherever in its chain of causes (Drizzle wraps the driver's). */
function reasons(err: unknown): string[] {
  const out: string[] = [];
  for (
    let e = err as { code?: string; message?: string; cause?: unknown } | undefined;
    e;
    e = e.cause as typeof e
  )
    out.push(e.code ?? '', e.message ?? '');
  return out;
}

describe('the last statement with its COMMIT', () => {
  it('one round trip fewer (on PGlite, one call into the engine fewer), committed when its answer arrives', async () => {
    const before = await rows();
    const plain = await roundTrips(async (tx) => {
      await insert(tx, 2, 2);
      await insert(tx, 3, 3);
    });
    const seen: number[][] = [];
    const together = await roundTrips(async (tx) => {
      await insert(tx, 4, 4);
      const r = (await lastStatementCommits(tx, () => insert(tx, 5, 5))) as unknown as { rows: Row[] };
      expect(r.rows).toEqual([{ a: 5 }]);
      // Another connection sees it before the transaction's function has returned (on PGlite, a read of the
      // same engine's state after the COMMIT it ran).
      if (database.kind !== 'pglite') seen.push(await rows());
    });
    // BEGIN goes with the first statement: three answers (on PGlite, calls) for two statements; with the COMMIT sent
    // with the last statement, two.
    expect([plain, together]).toEqual([3, 2]);
    if (database.kind !== 'pglite') expect(seen).toEqual([[...before, 2, 3, 4, 5]]);
    expect(await rows()).toEqual([...before, 2, 3, 4, 5]);
  });

  // `a` 1 exists: the statement fails at once; `b` 1 exists: the COMMIT fails (`b` is checked at COMMIT).
  it.each([
    ['the statement', [11, 1, 11], false],
    ['the COMMIT', [20, 21, 1], true],
  ] as const)(
    'leaves nothing when %s fails, and the connection serves the next transaction',
    async (_, [first, a, b], nextCommitsWithLast) => {
      const before = await rows();
      const err = await database.db
        .transaction(async (tx) => {
          await insert(tx, first, first + 100);
          await lastStatementCommits(tx, () => insert(tx, a, b));
        })
        .catch((e: unknown) => e);
      expect(reasons(err)).toContain('23505');
      expect(await rows()).toEqual(before);
      const next = first + 1;
      await database.db.transaction(async (tx) => {
        if (nextCommitsWithLast) await lastStatementCommits(tx, () => insert(tx, next, next + 100));
        else await insert(tx, next, next + 100);
      });
      expect(await rows()).toEqual([...before, next]);
    },
  );

  it('refuses a statement after it (it would run outside the transaction)', async () => {
    const before = await rows();
    const err = await database.db
      .transaction(async (tx) => {
        await lastStatementCommits(tx, () => insert(tx, 30, 30));
        // Refused as long as the transaction lasts, even when the caller goes on after the first refusal.
        await insert(tx, 31, 31).catch(() => undefined);
        await insert(tx, 33, 33);
      })
      .catch((e: unknown) => e as Error);
    expect(reasons(err)).toContain('statement after the transaction committed with its last statement');
    // The first is committed (nothing can undo it), the others never ran.
    expect(await rows()).toEqual([...before, 30]);
    await database.db.transaction(async (tx) => {
      await insert(tx, 32, 32);
    });
    expect(await rows()).toEqual([...before, 30, 32]);
  });

  it('a value that cannot be sent fails the statement once, and the transaction goes on', async () => {
    const before = await rows();
    // node-postgres reports this error, then calls back a second time at the ReadyForQuery.
    const unsendable = {
      toPostgres: () => {
        throw new Error('no wire form');
      },
    };
    await database.db.transaction(async (tx) => {
      const err = await lastStatementCommits(tx, () => insert(tx, unsendable as never, 50)).catch(
        (e: unknown) => e,
      );
      expect(reasons(err)).toContain('no wire form');
      await insert(tx, 51, 51);
    });
    expect(await rows()).toEqual([...before, 51]);
  });

  it('inside a nested transaction (a savepoint) runs as usual: the outer one still decides', async () => {
    const before = await rows();
    const err = await database.db
      .transaction(async (tx) => {
        await tx.transaction(async (sp) => {
          await lastStatementCommits(sp, () => insert(sp, 60, 60));
        });
        throw new Error('the outer transaction refuses');
      })
      .catch((e: unknown) => e as Error);
    expect((err as Error).message).toBe('the outer transaction refuses');
    expect(await rows()).toEqual(before);
  });

  it('rolls back as usual when the function fails before sending its statement', async () => {
    const before = await rows();
    const err = await database.db
      .transaction(async (tx) => {
        await insert(tx, 70, 70);
        await lastStatementCommits(tx, () => Promise.reject(new Error('refused before the statement')));
      })
      .catch((e: unknown) => e as Error);
    expect((err as Error).message).toBe('refused before the statement');
    expect(await rows()).toEqual(before);
    // The connection's next transaction is a plain one: its statements and COMMIT as usual.
    await database.db.transaction(async (tx) => {
      await insert(tx, 71, 71);
      await insert(tx, 72, 72);
    });
    expect(await rows()).toEqual([...before, 71, 72]);
  });

  it('BEGIN goes with the first statement: nothing sent for a transaction without statements, one answer for one armed', async () => {
    const before = await rows();
    expect(await roundTrips(async () => {})).toBe(0);
    expect(await roundTrips((tx) => lastStatementCommits(tx, () => insert(tx, 80, 80)).then(() => {}))).toBe(
      1,
    );
    expect(await rows()).toEqual([...before, 80]);
  });

  it('rolls back a transaction whose first statement failed (its BEGIN had run)', async () => {
    const before = await rows();
    const err = await database.db
      .transaction(async (tx) => {
        await insert(tx, 1, 181);
      })
      .catch((e: unknown) => e);
    expect(reasons(err)).toContain('23505');
    const err2 = await database.db
      .transaction(async (tx) => {
        await insert(tx, 82, 82).catch(() => undefined);
        await insert(tx, 1, 182).catch(() => undefined);
        // The transaction has failed: this one is refused, and nothing of it stays.
        await insert(tx, 83, 83);
      })
      .catch((e: unknown) => e);
    expect(reasons(err2)).toContain('25P02');
    expect(await rows()).toEqual(before);
  });

  it('sends BEGIN alone before a first statement not yet prepared on the connection, inside the transaction still', async () => {
    const before = await rows();
    // A text seen a second time gets a name (pg-prepared.ts); this transaction's connection has not parsed it, as
    // its first sighting ran unnamed. On PGlite BEGIN goes with it as always.
    const fresh = () => sql.raw(`${randomBytes(4).readUInt32BE()}`);
    const select = (tx: Tx | Database['db'], n: number, tag: ReturnType<typeof fresh>) =>
      tx.execute(sql`select ${n}::int + ${tag} * 0 as v`);
    const [one, two] = [fresh(), fresh()];
    await select(database.db, 1, one);
    await select(database.db, 1, two);
    const trips = await roundTrips(async (tx) => {
      await select(tx, 2, one);
      await insert(tx, 110, 110);
    });
    expect(trips).toBe(database.kind === 'pglite' ? 3 : 4);
    const err = await database.db
      .transaction(async (tx) => {
        await select(tx, 2, two);
        await insert(tx, 111, 111);
        throw new Error('undo');
      })
      .catch((e: unknown) => e as Error);
    expect(err.message).toBe('undo');
    expect(await rows()).toEqual([...before, 110]);
  });

  it('leaves no connection inside a transaction', async () => {
    if (database.kind === 'pglite') return;
    const r = (await database.db.execute(
      sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and state like 'idle in transaction%'`,
    )) as unknown as { rows: { n: number }[] };
    expect(r.rows[0]!.n).toBe(0);
  });
});
