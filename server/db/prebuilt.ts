/**
 * Statements whose SQL Drizzle builds once per process (docs/performance.md, "SQL built once"). Building a query's
 * text walks every column and chunk of the builder (`is()` checks, casing, escaping): 60-180 µs a statement, about a
 * tenth of a wallet pay's thread time, for a text that never changes. A prebuilt statement builds its text and
 * result mapping on first use, with `sql.placeholder`s where the values go, and then only binds the values and runs
 * it on whichever handle it is given: the database or a transaction (the statement then runs in that transaction).
 *
 * The builder function gets no call's values, only placeholders (`p.name`), so nothing of one call can be frozen
 * into the text. Placeholder values in `where` conditions and in `sql` templates reach the driver as they are
 * (numbers, strings, arrays, Dates); in `insert ... values` and `update ... set` the column encodes them, null
 * included: a value that may be null for a column whose encoder does not take null (timestamp, json) goes in through
 * an `sql` placeholder instead.
 *
 * It relies on two of Drizzle's fields (0.45): the session's `client` and the prepared query's `client`; the
 * tests in tests/server/db/prebuilt.test.ts run it on both drivers, inside and outside transactions. The logger and
 * result cache are those of the first database of the driver that ran the statement (ours set neither).
 */
import { type Placeholder, type SQL, sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { Db, Tx } from './client';

type Handle = Db | Tx;

/** The placeholders of a statement, one per value it takes. */
export type Params<V> = { readonly [K in keyof V]: Placeholder<K & string, V[K]> };

interface Executable<R> {
  execute(values?: Record<string, unknown>): Promise<R>;
}

/**
 * A placeholder as a value in `update ... set`, whose type only takes values: the column wraps it and encodes the
 * call's value, as it does in `insert ... values`.
 */
export const setTo = <T>(p: Placeholder<string, T>): T => p as unknown as T;

const placeholders = new Proxy({} as Record<string, Placeholder>, {
  get: (_, name) => sql.placeholder(String(name)),
});

const clientOf = (d: Handle): unknown => (d._.session as unknown as { client: unknown }).client;

/** The prepared query, built once, run against the handle's own connection (or transaction). */
function boundTo<R>(proto: Executable<R>, d: Handle): Executable<R> {
  const q = Object.create(proto) as Executable<R> & { client: unknown };
  q.client = clientOf(d);
  return q;
}

/**
 * Builds a prepared query on first use per driver (the prepared query's class is the driver's: a process may hold a
 * PGlite and a PostgreSQL database at once, as the bench does); drops the first handle's connection so only bound
 * copies ever run.
 */
function once<R>(prepare: (d: Handle) => Executable<R>): (d: Handle) => Executable<R> {
  const protos = new Map<unknown, Executable<R>>();
  return (d) => {
    const driver = d._.session.constructor;
    let proto = protos.get(driver);
    if (!proto) {
      proto = prepare(d);
      (proto as unknown as { client: unknown }).client = undefined;
      protos.set(driver, proto);
    }
    return boundTo(proto, d);
  };
}

/**
 * A query-builder statement built once: `build(d, p)` returns the builder (select, insert, update, delete, with
 * `p.x` for each value); the result is what awaiting that builder returns.
 */
export function prebuilt<V extends object, R>(
  build: (d: Handle, p: Params<V>) => { prepare(name?: string): Executable<R> },
): (d: Handle, values: V) => Promise<R> {
  const get = once((d) => build(d, placeholders as unknown as Params<V>).prepare());
  return (d, values) => get(d).execute(values as Record<string, unknown>);
}

const dialect = new PgDialect();

/**
 * An `sql` statement built once; resolves to its rows as the driver returns them (snake_case names, timestamps as
 * text; cast or convert in SQL what must arrive otherwise).
 */
export function prebuiltSql<V extends object, Row>(
  build: (p: Params<V>) => SQL,
): (d: Handle, values: V) => Promise<Row[]> {
  const get = once(
    (d) =>
      d._.session.prepareQuery(
        dialect.sqlToQuery(build(placeholders as unknown as Params<V>)),
        undefined,
        undefined,
        false,
      ) as Executable<{ rows: Row[] }>,
  );
  return async (d, values) => (await get(d).execute(values as Record<string, unknown>)).rows;
}
