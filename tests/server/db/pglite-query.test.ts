/**
 * PGlite statements in one call into the engine (server/db/pglite-query.ts, docs/performance.md): answers equal
 * PGlite's own `query()` for the parameter kinds the app sends; a failing statement throws PGlite's error with its
 * code and query and leaves the connection usable; inside a transaction it rolls the transaction back; a caller's
 * parsers apply to its statement only. A statement text runs from one prepared statement: parsed once, kept across
 * errors and rollbacks, re-parsed when its table changed shape, and at most PREPARED_MAX kept.
 */
import { PGlite, types } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oneCallQuery, PREPARED_MAX, supportsOneCall } from '../../../server/db/pglite-query';
import { oneCallTransaction } from '../../../server/db/pglite-tx';

let pg: PGlite;
let query: ReturnType<typeof oneCallQuery>;

beforeAll(async () => {
  pg = new PGlite();
  await pg.waitReady;
  query = oneCallQuery(pg);
  await pg.exec('create table t (id serial primary key, n int not null unique, at timestamptz, doc jsonb)');
}, 60_000);
afterAll(() => pg?.close());

describe('one-call PGlite statements', () => {
  it('finds the PGlite internals it relies on in the installed PGlite', () => {
    expect(supportsOneCall(pg)).toBe(true);
  });

  it('answers as PGlite’s own query() for dates, numbers, booleans, text, null, JSON and arrays', async () => {
    const text = `select $1::timestamptz as at, $2::int as i, $3::bigint as big, $4::boolean as yes,
      $5::text as s, $6::text as none, $7::jsonb as doc, $8::int[] as ids, $9::text[] as names`;
    const params = [
      new Date('2026-11-23T08:09:10.123Z'),
      42,
      9_007_199_254_740_991,
      true,
      `it's "quoted", 中文`,
      null,
      { a: [1, 'b'], c: null },
      [3, 1, 2],
      ['x', 'y,z', 'a"b'],
    ];
    const own = await pg.query(text, params);
    const ours = await query(text, params);
    expect(ours.rows).toEqual(own.rows);
    expect(ours.fields).toEqual(own.fields);
    expect(ours.rows[0]).toMatchObject({
      i: 42,
      yes: true,
      s: `it's "quoted", 中文`,
      none: null,
      ids: [3, 1, 2],
    });
  });

  it('reports inserted rows, and a constraint violation as PGlite’s error, the connection still usable', async () => {
    const ins = await query('insert into t (n, at, doc) values ($1, $2, $3) returning id', [
      1,
      new Date(),
      JSON.stringify({ k: 1 }),
    ]);
    expect(ins.affectedRows).toBe(1);
    const err = await query('insert into t (n) values ($1)', [1]).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: '23505', query: 'insert into t (n) values ($1)', params: [1] });
    expect((await query('select count(*)::int as c from t')).rows).toEqual([{ c: 1 }]);
  });

  it('rolls a transaction back when one of its statements fails', async () => {
    await expect(
      oneCallTransaction(pg)(async (tx) => {
        const q = tx.query.bind(tx);
        await q('insert into t (n) values ($1)', [2]);
        await q('insert into t (n) values ($1)', [1]);
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect((await query('select n from t order by n')).rows).toEqual([{ n: 1 }]);
  });

  it('applies a caller’s parsers to its own statement only', async () => {
    const text = 'select $1::timestamptz as at';
    const at = new Date('2026-01-02T03:04:05Z');
    const raw = await query(text, [at], { parsers: { [types.TIMESTAMPTZ]: (v: string) => v } });
    expect(typeof (raw.rows[0] as { at: unknown }).at).toBe('string');
    const parsed = await query(text, [at]);
    expect((parsed.rows[0] as { at: Date }).at).toEqual(at);
  });
});

describe('prepared statements', () => {
  /** How many prepared statements the backend holds for this exact text. */
  const preparedFor = async (text: string) =>
    (
      await pg.query<{ c: number }>(
        'select count(*)::int as c from pg_prepared_statements where statement = $1',
        [text],
      )
    ).rows[0]!.c;

  it('parses a statement text once and runs it again from its prepared statement', async () => {
    const text = 'select $1::int + 1 as next';
    expect(await preparedFor(text)).toBe(0);
    expect((await query(text, [1])).rows).toEqual([{ next: 2 }]);
    expect((await query(text, [41])).rows).toEqual([{ next: 42 }]);
    expect(await preparedFor(text)).toBe(1);
  });

  it('keeps a statement whose execution failed, and never keeps one that did not parse', async () => {
    const text = 'select 10 / $1::int as q';
    await expect(query(text, [0])).rejects.toMatchObject({ code: '22012' });
    expect((await query(text, [5])).rows).toEqual([{ q: 2 }]);
    expect(await preparedFor(text)).toBe(1);
    const bad = 'selec $1::int';
    for (let i = 0; i < 2; i++) await expect(query(bad, [1])).rejects.toMatchObject({ code: '42601' });
    expect(await preparedFor(bad)).toBe(0);
  });

  it('outlives a transaction that rolled back, and parses nothing in a failed one', async () => {
    const text = 'select n from t where n = $1';
    await expect(
      oneCallTransaction(pg)(async (tx) => {
        const q = tx.query.bind(tx);
        expect((await q(text, [1])).rows).toEqual([{ n: 1 }]);
        await q('insert into t (n) values ($1)', [1]).catch(() => undefined);
        // The transaction has failed: this new text cannot be parsed now, and is not taken as prepared.
        await q('select n + 100 as m from t where n = $1', [1]);
      }),
    ).rejects.toMatchObject({ code: '25P02' });
    expect((await query(text, [1])).rows).toEqual([{ n: 1 }]);
    expect((await query('select n + 100 as m from t where n = $1', [1])).rows).toEqual([{ m: 101 }]);
  });

  it('parses again when the table changed shape under a prepared statement', async () => {
    await pg.exec('create table shape (a int)');
    await pg.exec('insert into shape values (1)');
    const text = 'select * from shape where a = $1';
    expect((await query(text, [1])).rows).toEqual([{ a: 1 }]);
    await pg.exec('alter table shape add column b int default 7');
    // PostgreSQL refuses the stale plan once ("cached plan must not change result type"); the next run parses anew.
    const first = await query(text, [1]).then(
      (r) => r.rows,
      (e: unknown) => e,
    );
    if (!Array.isArray(first)) expect(first).toMatchObject({ code: '0A000' });
    expect((await query(text, [1])).rows).toEqual([{ a: 1, b: 7 }]);
  });

  it(`keeps at most ${PREPARED_MAX} statements, closing the least recently used`, async () => {
    const kept = 'select $1::int * 2 as twice';
    await query(kept, [1]);
    for (let i = 0; i < PREPARED_MAX + 20; i++) {
      await query(`select $1::int + ${i} as v`, [1]);
      // Used again and again: stays among the most recently used.
      if (i % 50 === 0) await query(kept, [2]);
    }
    const { c } = (
      await pg.query<{ c: number }>(
        `select count(*)::int as c from pg_prepared_statements where name like 'q%'`,
      )
    ).rows[0]!;
    expect(c).toBeLessThanOrEqual(PREPARED_MAX + 1);
    expect(await preparedFor('select $1::int + 0 as v')).toBe(0);
    expect(await preparedFor(kept)).toBe(1);
  });
});
