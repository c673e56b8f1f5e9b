/**
 * PGlite statements in one call into the engine (server/db/pglite-query.ts, docs/performance.md): answers equal
 * PGlite's own `query()` for the parameter kinds the app sends; a failing statement throws PGlite's error with its
 * code and query and leaves the connection usable; inside a transaction it rolls the transaction back; a caller's
 * parsers apply to its statement only.
 */
import { PGlite, types } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oneCallQuery, oneCallTxQuery, supportsOneCall } from '../../../server/db/pglite-query';

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
      pg.transaction(async (tx) => {
        const q = oneCallTxQuery(pg, tx);
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
