/**
 * Opens the database: node-postgres when a `DATABASE_URL` is given, otherwise an embedded PGlite stored under
 * `dataDir` (or in memory when `dataDir` is 'memory://'). Both run the same Drizzle schema, queries and migrations.
 */
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import fs from 'node:fs';
import type { PGlite } from '@electric-sql/pglite';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { resetCommitWithLast, sendCommitWithLast } from './commit-with-last';
import { namePreparedStatements, statementNames } from './pg-prepared';

/**
 * The one database type the services use; PGlite and node-postgres databases both satisfy it. Opened without the
 * schema: the services use the query builder and `sql`, never the relational `db.query` API, and Drizzle builds
 * that API's table of query builders anew for every transaction (a tenth of Drizzle's time per pay in the bench).
 */
export type Db = PgDatabase<PgQueryResultHKT>;
/** A transaction handle (same query API as Db). */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

export interface Database {
  db: Db;
  kind: 'pglite' | 'postgres';
  close(): Promise<void>;
}

/** Statements sent to the database (BEGIN and COMMIT included), counted at the driver for `npm run bench`. */
export interface StatementCounter {
  count: number;
}
const counters = new WeakMap<object, StatementCounter>();

/** The statement counter of a database opened by `openDatabase` (the same for its transactions' handles). */
export function statementCounter(db: Db): StatementCounter | undefined {
  return counters.get(db);
}

/** Wraps `obj[name]` so every call counts one statement (or `weight`). */
function countCalls(obj: object, name: string, counter: StatementCounter, weight = 1): void {
  const o = obj as Record<string, unknown>;
  const orig = o[name] as (...args: unknown[]) => unknown;
  o[name] = function (this: unknown, ...args: unknown[]) {
    counter.count += weight;
    return orig.apply(this, args);
  };
}

/**
 * The default node-postgres pool, sized to what the database runs at once, not to the requests in flight: more
 * connections than that only queue inside PostgreSQL, behind the shared wallet rows' locks and for its CPUs, where
 * the wait is longest for the unluckiest; in the pool's own queue a request waits holding nothing, first come first
 * served (docs/decisions.md D29, measured in docs/performance.md "The pool").
 */
export const DEFAULT_POOL_SIZE = 8;

export const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

export interface OpenOptions {
  databaseUrl?: string | undefined;
  /** Directory for PGlite files, or 'memory://' for a throwaway in-memory DB. */
  dataDir?: string;
  /** node-postgres pool size. */
  poolSize?: number;
  /** Named prepared statements on node-postgres (pg-prepared.ts); default on. */
  prepared?: boolean;
}

/** Advisory lock key held while migrating (any constant other locks of this database do not use). */
const MIGRATION_LOCK = 727_003;

export async function openDatabase(opts: OpenOptions): Promise<Database> {
  if (opts.databaseUrl) {
    const { default: pg } = await import('pg');
    const { drizzle } = await import('drizzle-orm/node-postgres');
    const { migrate } = await import('drizzle-orm/node-postgres/migrator');
    // bigint (int8) columns come back as numbers: our sums stay far below 2^53.
    pg.types.setTypeParser(20, (v) => Number(v));
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: opts.poolSize ?? DEFAULT_POOL_SIZE });
    const counter: StatementCounter = { count: 0 };
    // Every statement, pooled or in a transaction, goes through a client's query().
    const names = opts.prepared === false ? undefined : statementNames();
    pool.on('connect', (client) => {
      // Innermost, so the counting and naming wrappers see the statement and its COMMIT as two statements.
      sendCommitWithLast(client as never, pg);
      countCalls(client, 'query', counter);
      if (names) namePreparedStatements(client, names);
    });
    pool.on('release', (_err: unknown, client: unknown) => resetCommitWithLast(client as never));
    // An idle connection dropped by the server (restart, failover, admin) must not crash the process: the pool
    // replaces it, and queries in flight fail with their own error.
    pool.on('error', (err) => console.error('database: idle connection lost:', err.message));
    const db = drizzle(pool) as unknown as Db;
    // Several instances starting together on one database migrate one after the other: the first applies the
    // migrations, the others then find nothing left to do (a concurrent run fails on "relation already exists").
    // The lock and the migrations on one connection: with a pool of one, a second would never come.
    const lock = await pool.connect();
    try {
      await lock.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
      await migrate(drizzle(lock) as never, { migrationsFolder: MIGRATIONS_DIR });
    } finally {
      await lock.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
      lock.release();
    }
    counters.set(db, counter);
    return { db, kind: 'postgres', close: () => pool.end() };
  }
  const { PGlite } = await import('@electric-sql/pglite');
  const { migrate } = await import('drizzle-orm/pglite/migrator');
  const dir = opts.dataDir ?? './data';
  if (dir !== 'memory://') fs.mkdirSync(dir, { recursive: true });
  const client = dir === 'memory://' ? new PGlite() : new PGlite(path.resolve(dir, 'pglite'));
  await client.waitReady;
  const database = await pgliteDatabase(client);
  await migrate(database.db as never, { migrationsFolder: MIGRATIONS_DIR });
  return database;
}

/**
 * The Drizzle database over a ready PGlite instance, as the server runs it (the tests' in-memory databases too):
 * each statement in one call into the engine (pglite-query.ts; `exec`, the simple protocol, stays PGlite's own)
 * and counted at the driver, the calls outside a transaction taking turns with the event loop (pglite-turns.ts;
 * `turnMs` as there). Not migrated here.
 */
export async function pgliteDatabase(client: PGlite, opts: { turnMs?: number } = {}): Promise<Database> {
  const { drizzle } = await import('drizzle-orm/pglite');
  const { oneCallQuery, supportsOneCall } = await import('./pglite-query');
  const { oneCallTransaction } = await import('./pglite-tx');
  const { engineTurns } = await import('./pglite-turns');
  const oneCall = supportsOneCall(client);
  const counter: StatementCounter = { count: 0 };
  if (oneCall) client.query = oneCallQuery(client) as typeof client.query;
  countCalls(client, 'query', counter);
  countCalls(client, 'exec', counter);
  const gate = engineTurns(opts.turnMs);
  const query = client.query.bind(client);
  const exec = client.exec.bind(client);
  client.query = ((...args: Parameters<typeof query>) => gate(() => query(...args))) as typeof client.query;
  client.exec = (...args) => gate(() => exec(...args));
  // BEGIN with the first statement and COMMIT with an armed last one (pglite-tx.ts), or PGlite's own transaction.
  const transaction = oneCall ? oneCallTransaction(client) : client.transaction.bind(client);
  // BEGIN and COMMIT, then the statements run on the transaction's handle.
  client.transaction = (fn) => {
    counter.count += 2;
    return gate(() =>
      transaction((t) => {
        countCalls(t, 'query', counter);
        countCalls(t, 'exec', counter);
        return fn(t);
      }),
    );
  };
  const db = drizzle(client) as unknown as Db;
  counters.set(db, counter);
  // Closed after the calls already given (PGlite's own lock would have run them first, too).
  return { db, kind: 'pglite', close: () => gate(() => client.close()) };
}
