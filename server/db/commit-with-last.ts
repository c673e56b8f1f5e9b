/**
 * A transaction's last statement and its COMMIT in one round trip on node-postgres (docs/decisions.md D32,
 * measured in docs/performance.md "The last statement carries the COMMIT").
 *
 * A wallet pay's last statement updates the shared wallet rows (the platform's fee wallet, the merchant's) and holds
 * their row locks until COMMIT. Sent as two round trips, those locks were held while the statement's answer went to
 * the server, waited for its busy thread to read it, and COMMIT came back: every other pay on those rows queued
 * behind that wait. Sent together, the statement (Parse if new, Bind, Describe, Execute) is followed in the same
 * write by COMMIT (Parse, Bind, Execute) and one Sync: PostgreSQL commits as soon as the statement ends, and the
 * locks last only as long as the database's own work.
 *
 * Semantics are those of the two round trips:
 * - the statement fails: PostgreSQL skips everything up to the Sync, COMMIT included; the transaction is left
 *   aborted, the error goes to the caller, and Drizzle's ROLLBACK ends it; nothing is written;
 * - COMMIT fails (a deferred constraint, a serialization failure): the transaction is gone, the error goes to the
 *   caller, nothing is written;
 * - it succeeds: the statement's rows are the answer, the transaction is committed, and the COMMIT Drizzle sends when
 *   the transaction's function returns is answered here without a round trip. Any other statement on that
 *   transaction after it is refused with an error (it would otherwise run outside the transaction), until Drizzle's
 *   COMMIT or ROLLBACK ends it;
 * - the connection is lost after the write: as for a COMMIT sent alone, whether it committed is unknown, now for the
 *   statement too (the caller's error path must not assume a rollback: the pay's Idempotency-Key finds the order,
 *   and the devices scheduler sends a start command the answer did not).
 * A statement whose rows fail to parse in node-postgres is reported as an error after its COMMIT has run (the pay's
 * and the booking's return only integers).
 *
 * On PGlite there is no round trip to save (the engine runs on the server's thread and transactions run one at a
 * time): the statement runs as usual and Drizzle commits.
 *
 * Relies on node-postgres' exported `Query` class and its `_getRows` step (pg 8, pinned in the lockfile); the tests in
 * tests/server/db/commit-with-last.test.ts run it against a real PostgreSQL.
 */
/** The parts of node-postgres' connection that a query writes its messages with. */
interface Connection {
  parse(m: { text: string; name: string }): void;
  bind(m: { portal: string; statement: string; values: unknown[] }): void;
  execute(m: { portal: string; rows?: number }): void;
  sync(): void;
}

/** The parts of node-postgres' Query this module overrides or sets. */
interface PgQuery {
  portal: string;
  queryMode?: string;
  callback?: (err: Error | null, res?: unknown) => void;
  _getRows(connection: Connection, rows?: number): void;
  handleCommandComplete(msg: { text: string }, connection: Connection): void;
}

type QueryClass = new (config: unknown, values?: unknown) => PgQuery;

/** node-postgres' Query with its Execute followed, before its Sync, by COMMIT's. */
const queryThenCommit = (Query: QueryClass) =>
  class QueryThenCommit extends Query {
    /** PostgreSQL answered COMMIT with ROLLBACK: the transaction had already failed. */
    rolledBack = false;

    constructor(config: unknown, values?: unknown) {
      super(config, values);
      // The extended protocol even without parameters: a simple query's messages could not carry the COMMIT's.
      this.queryMode = 'extended';
    }

    override _getRows(connection: Connection, rows?: number) {
      // A portal read in pages answers over several round trips; not this case.
      if (rows) return super._getRows(connection, rows);
      connection.execute({ portal: this.portal });
      connection.parse({ text: 'commit', name: '' });
      connection.bind({ portal: '', statement: '', values: [] });
      connection.execute({ portal: '' });
      connection.sync();
    }

    override handleCommandComplete(msg: { text: string }, connection: Connection) {
      if (msg.text === 'COMMIT') return;
      if (msg.text === 'ROLLBACK') {
        this.rolledBack = true;
        return;
      }
      super.handleCommandComplete(msg, connection);
    }
  };

/** The subclass, made once per node-postgres module (passed in: this module does not load the driver). */
const classes = new Map<unknown, ReturnType<typeof queryThenCommit>>();

const ARM = Symbol('the next statement carries the COMMIT');

interface Client {
  query(...args: unknown[]): unknown;
  /** Arms the next statement; disarms it if no statement was sent; or resets whatever the state. */
  [ARM]?: (to: 'arm' | 'disarm' | 'reset') => void;
}

const textOf = (config: unknown): string | undefined =>
  typeof config === 'string' ? config : (config as { text?: unknown } | null)?.text?.toString();

/** What node-postgres answers for COMMIT. */
const COMMITTED = { command: 'COMMIT', rowCount: null, rows: [], fields: [] };

/**
 * Lets `lastStatementCommits` send a statement with the COMMIT on this pooled connection. Installed on each new
 * connection (server/db/client.ts), before the wrappers that count and name statements, so they see the statement
 * and the COMMIT as the two statements they are.
 */
export function sendCommitWithLast(client: Client, pg: { Query: unknown }): void {
  let QueryThenCommit = classes.get(pg.Query);
  if (!QueryThenCommit) {
    QueryThenCommit = queryThenCommit(pg.Query as QueryClass);
    classes.set(pg.Query, QueryThenCommit);
  }
  const Commit = QueryThenCommit;
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  let state: 'off' | 'armed' | 'committed' = 'off';
  client[ARM] = (to) => {
    if (to === 'arm') state = 'armed';
    else if (to === 'reset' || state === 'armed') state = 'off';
  };
  client.query = (...args: unknown[]) => {
    const [config, values, callback] = args;
    if (state === 'committed') {
      const text = textOf(config)?.trim().toLowerCase();
      if (text === 'commit') {
        state = 'off';
        return Promise.resolve(COMMITTED);
      }
      // The caller failed after the commit: its ROLLBACK only meets "no transaction in progress".
      if (text === 'rollback') state = 'off';
      // Anything else would run outside the transaction: refused until the transaction's COMMIT or ROLLBACK.
      else
        return Promise.reject(new Error('statement after the transaction committed with its last statement'));
    }
    if (state === 'armed') {
      state = 'off';
      const plain =
        typeof config === 'object' &&
        config !== null &&
        !('submit' in config) &&
        // A portal read in pages is answered over several round trips: it goes as usual.
        !(config as { rows?: unknown }).rows &&
        typeof values !== 'function' &&
        typeof callback !== 'function';
      if (plain) {
        return new Promise((resolve, reject) => {
          const q = new Commit(config, values);
          let settled = false;
          // node-postgres may call back twice (an error binding the values, then the ReadyForQuery): the first counts.
          q.callback = (err, res) => {
            if (settled) return;
            settled = true;
            if (err) return reject(err);
            if (q.rolledBack) return reject(new Error('the transaction had failed: COMMIT rolled it back'));
            state = 'committed';
            resolve(res);
          };
          query(q);
        });
      }
    }
    return query(...args);
  };
}

/** A connection goes back to the pool as it came: nothing armed, nothing to answer (pg-pool's `release` event). */
export function resetCommitWithLast(client: Client): void {
  client[ARM]?.('reset');
}

/**
 * Runs `run`, whose first statement must be the last of the transaction `tx`, with the COMMIT sent alongside it on
 * node-postgres (see above); on PGlite, or inside a nested transaction (a savepoint: its COMMIT would end the outer
 * one), as it is. After it resolves the transaction is committed: the caller returns, and nothing it does can roll
 * the transaction back.
 */
export async function lastStatementCommits<R>(tx: unknown, run: () => Promise<R>): Promise<R> {
  const t = tx as { nestedIndex?: number; _: { session: { client: Client } } };
  if (t.nestedIndex) return run();
  const client = t._.session.client;
  client[ARM]?.('arm');
  try {
    return await run();
  } finally {
    // `run` failed before it sent a statement: the ROLLBACK that follows must not carry a COMMIT.
    client[ARM]?.('disarm');
  }
}
