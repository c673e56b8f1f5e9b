/**
 * On PostgreSQL (TEST_DATABASE_URL): named prepared statements on node-postgres (server/db/pg-prepared.ts). A text
 * runs unnamed the first time and from its prepared statement after; the callback form that `pool.query` uses
 * works; a plan gone stale under a changed table, or a statement closed after a value that could not be sent, is
 * parsed again under a new name; a connection keeps at most
 * PG_PREPARED_MAX; statements without parameters pass as they are. PGlite has its own path: skipped there. The
 * record of first sightings is bounded by count and by length, on either database.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  namePreparedStatements,
  PG_PREPARED_MAX,
  SIGHTINGS_MAX,
  SIGHTINGS_MAX_CHARS,
  statementNames,
} from '../../../server/db/pg-prepared';

const url = process.env.TEST_DATABASE_URL;
const table = `pgprep_${randomBytes(4).toString('hex')}`;
let pool: pg.Pool;

/** The prepared statements of this connection, by text. */
async function preparedOn(c: pg.PoolClient): Promise<string[]> {
  const r = await c.query<{ statement: string }>('select statement from pg_prepared_statements');
  return r.rows.map((x) => x.statement);
}

describe.skipIf(!url)('named prepared statements on node-postgres', () => {
  beforeAll(async () => {
    pool = new pg.Pool({ connectionString: url, max: 2 });
    const names = statementNames();
    pool.on('connect', (c) => namePreparedStatements(c, names));
    await pool.query(`create table ${table} (a int)`);
    await pool.query(`insert into ${table} values (1)`);
  }, 60_000);
  afterAll(async () => {
    await pool?.query(`drop table if exists ${table}`);
    await pool?.end();
  });

  it('runs a text unnamed once, then from its prepared statement', async () => {
    const c = await pool.connect();
    try {
      const text = 'select $1::int + 1 as next';
      expect((await c.query(text, [1])).rows).toEqual([{ next: 2 }]);
      expect(await preparedOn(c)).not.toContain(text);
      expect((await c.query({ text, values: [2] })).rows).toEqual([{ next: 3 }]);
      expect((await c.query(text, [41])).rows).toEqual([{ next: 42 }]);
      expect((await preparedOn(c)).filter((s) => s === text)).toHaveLength(1);
      // No parameters: BEGIN, COMMIT and the like stay simple queries.
      await c.query('select 1 as one');
      await c.query('select 1 as one');
      expect(await preparedOn(c)).not.toContain('select 1 as one');
    } finally {
      c.release();
    }
  });

  it('answers through the callback form that pool.query uses', async () => {
    for (let i = 0; i < 3; i++) {
      const r = await pool.query<{ a: number }>(`select a from ${table} where a = $1`, [1]);
      expect(r.rows).toEqual([{ a: 1 }]);
    }
    const err = await pool.query('select 10 / $1::int', [0]).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: '22012' });
    expect((await pool.query<{ q: number }>('select 10 / $1::int as q', [5])).rows).toEqual([{ q: 2 }]);
  });

  it('parses again under a new name when the table changed shape under a prepared statement', async () => {
    const c = await pool.connect();
    try {
      const text = `select * from ${table} where a = $1`;
      await c.query(text, [1]);
      expect((await c.query(text, [1])).rows).toEqual([{ a: 1 }]);
      await c.query(`alter table ${table} add column b int default 7`);
      const first = await c.query(text, [1]).then(
        (r) => r.rows,
        (e: unknown) => e,
      );
      if (!Array.isArray(first)) expect(first).toMatchObject({ code: '0A000' });
      expect((await c.query(text, [1])).rows).toEqual([{ a: 1, b: 7 }]);
    } finally {
      c.release();
    }
  });

  it('parses again under a new name after a value it could not send (node-postgres closed the statement)', async () => {
    const c = await pool.connect();
    try {
      const text = `select a from ${table} where a = $1::int`;
      await c.query(text, [1]);
      expect((await c.query(text, [1])).rows).toEqual([{ a: 1 }]);
      const unsendable = {
        toPostgres: () => {
          throw new Error('no wire form');
        },
      };
      await expect(c.query(text, [unsendable])).rejects.toThrow('no wire form');
      expect((await c.query(text, [1])).rows).toEqual([{ a: 1 }]);
      expect((await c.query(text, [1])).rows).toEqual([{ a: 1 }]);
    } finally {
      c.release();
    }
  });

  it(`keeps at most ${PG_PREPARED_MAX} statements on one connection, and answers beyond them`, async () => {
    const c = await pool.connect();
    try {
      for (let i = 0; i < PG_PREPARED_MAX + 20; i++) {
        const text = `select $1::int + ${i} as v`;
        await c.query(text, [1]);
        expect((await c.query(text, [1])).rows).toEqual([{ v: 1 + i }]);
      }
      expect((await preparedOn(c)).length).toBeLessThanOrEqual(PG_PREPARED_MAX);
    } finally {
      c.release();
    }
  });
});

describe('the record of texts seen once', () => {
  it('names a text on its second sighting, the same name after', () => {
    const names = statementNames();
    expect(names.nameFor('select $1')).toBeUndefined();
    const name = names.nameFor('select $1');
    expect(name).toBeDefined();
    expect(names.nameFor('select $1')).toBe(name);
  });

  it(`forgets first sightings past ${SIGHTINGS_MAX} texts`, () => {
    const names = statementNames();
    names.nameFor('select 0');
    for (let i = 1; i <= SIGHTINGS_MAX; i++) names.nameFor(`select ${i}`);
    // Forgotten: its next sighting counts as a first one.
    expect(names.nameFor('select 0')).toBeUndefined();
    expect(names.nameFor('select 0')).toBeDefined();
  });

  it(`forgets first sightings past ${SIGHTINGS_MAX_CHARS} characters, so long one-off texts hold little`, () => {
    const names = statementNames();
    const long = (c: string) => `insert into t values ${c.repeat(SIGHTINGS_MAX_CHARS / 2)}`;
    names.nameFor('select $1');
    names.nameFor(long('a'));
    names.nameFor(long('b'));
    expect(names.nameFor('select $1')).toBeUndefined();
    expect(names.nameFor(long('a'))).toBeUndefined();
  });
});
