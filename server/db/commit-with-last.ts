/**
 * A transaction's last statement and its COMMIT in one round trip on node-postgres (docs/decisions.md D32,
 * measured in docs/performance.md "The last statement carries the COMMIT"), and its BEGIN with its first statement
 * (D37, `sendCommitWithLast` below).
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
 * time), but each call into the engine costs the server's thread: the COMMIT goes into the engine with the statement,
 * under the same rules (pglite-tx.ts).
 *
 * Relies on node-postgres' exported `Query` class, its `prepare` and `_getRows` steps and its connection's
 * `parsedStatements` (pg 8, pinned in the lockfile); the tests in
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
  name?: string;
  queryMode?: string;
  callback?: (err: Error | null, res?: unknown) => void;
  prepare(connection: Connection): void;
  _getRows(connection: Connection, rows?: number): void;
  handleCommandComplete(msg: { text: string }, connection: Connection): void;
}

type QueryClass = new (config: unknown, values?: unknown) => PgQuery;

/** What a statement carries besides itself: the transaction's BEGIN before it, its COMMIT after it. */
interface Carries {
  begin: boolean;
  commit: boolean;
}

/** BEGIN as the unnamed statement, run once (its answer: ParseComplete, BindComplete, CommandComplete). */
function sendBegin(connection: Connection) {
  connection.parse({ text: 'begin', name: '' });
  connection.bind({ portal: '', statement: '', values: [] });
  connection.execute({ portal: '' });
}

/** node-postgres' Query with BEGIN's messages before its own and, if asked, COMMIT's after its Execute. */
const queryWithEnds = (Query: QueryClass) =>
  class QueryWithEnds extends Query {
    carries: Carries = { begin: false, commit: false };
    /** PostgreSQL answered COMMIT with ROLLBACK: the transaction had already failed. */
    rolledBack = false;

    constructor(config: unknown, values?: unknown) {
      super(config, values);
      // The extended protocol even without parameters: a simple query's messages could not carry the others.
      this.queryMode = 'extended';
    }

    override prepare(connection: Connection) {
      if (this.carries.begin) sendBegin(connection);
      super.prepare(connection);
    }

    override _getRows(connection: Connection, rows?: number) {
      // A portal read in pages answers over several round trips: never sent with a COMMIT.
      if (rows || !this.carries.commit) return super._getRows(connection, rows);
      connection.execute({ portal: this.portal });
      connection.parse({ text: 'commit', name: '' });
      connection.bind({ portal: '', statement: '', values: [] });
      connection.execute({ portal: '' });
      connection.sync();
    }

    override handleCommandComplete(msg: { text: string }, connection: Connection) {
      if (msg.text === 'BEGIN' && this.carries.begin) return;
      if (msg.text === 'COMMIT' && this.carries.commit) return;
      if (msg.text === 'ROLLBACK' && this.carries.commit) {
        this.rolledBack = true;
        return;
      }
      super.handleCommandComplete(msg, connection);
    }
  };

/** The subclass, made once per node-postgres module (passed in: this module does not load the driver). */
const classes = new Map<unknown, ReturnType<typeof queryWithEnds>>();

const ARM = Symbol('the next statement carries the COMMIT');

interface Client {
  query(...args: unknown[]): unknown;
  /** Arms the next statement; disarms it if no statement was sent; or resets whatever the state. */
  [ARM]?: (to: 'arm' | 'disarm' | 'reset') => void;
}

const textOf = (config: unknown): string | undefined =>
  typeof config === 'string' ? config : (config as { text?: unknown } | null)?.text?.toString();

/** What node-postgres answers for a transaction's BEGIN, COMMIT or ROLLBACK. */
const answered = (command: string) => ({ command, rowCount: null, rows: [], fields: [] });

/** A statement this module can send with other messages: a query's configuration, answered by a promise. */
function isPlain(config: unknown, values: unknown, callback: unknown): boolean {
  return (
    typeof config === 'object' &&
    config !== null &&
    !('submit' in config) &&
    // A portal read in pages is answered over several round trips: it goes as usual.
    !(config as { rows?: unknown }).rows &&
    typeof values !== 'function' &&
    typeof callback !== 'function'
  );
}

/** A statement without parameters whose text is exactly `word` (as Drizzle sends BEGIN, COMMIT, ROLLBACK). */
function isWord(config: unknown, values: unknown, word: string): boolean {
  const params = (config as { values?: unknown[] } | null)?.values ?? values;
  return (
    textOf(config)?.trim().toLowerCase() === word &&
    (params === undefined || (Array.isArray(params) && params.length === 0))
  );
}

/**
 * Lets a transaction's BEGIN go with its first statement, and `lastStatementCommits` send a statement with the
 * COMMIT, on this pooled connection. Installed on each new connection (server/db/client.ts), before the wrappers
 * that count and name statements, so they see BEGIN, the statement and the COMMIT as the statements they are.
 *
 * BEGIN (Drizzle's, at the start of every transaction) is answered at once and sent as the unnamed statement before
 * the transaction's first statement, in its write and under its Sync, as JDBC drivers send it: the first statement
 * fails, and BEGIN has run (the transaction is left failed, and Drizzle's ROLLBACK ends it); a transaction that
 * sends no statement ends with a COMMIT or ROLLBACK answered at once, nothing sent. BEGIN goes alone, as before,
 * when the first statement could not carry it: a callback or a streamed query, or a named statement not yet parsed
 * on this connection (node-postgres takes the first ParseComplete of a write for its statement's).
 */
export function sendCommitWithLast(client: Client, pg: { Query: unknown }): void {
  let WithEnds = classes.get(pg.Query);
  if (!WithEnds) {
    WithEnds = queryWithEnds(pg.Query as QueryClass);
    classes.set(pg.Query, WithEnds);
  }
  const Ends = WithEnds;
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const parsed = () =>
    (client as unknown as { connection?: { parsedStatements?: Record<string, string> } }).connection
      ?.parsedStatements ?? {};
  let state: 'off' | 'armed' | 'committed' = 'off';
  let beginPending = false;
  client[ARM] = (to) => {
    if (to === 'arm') state = 'armed';
    else if (to === 'reset' || state === 'armed') state = 'off';
    if (to === 'reset') beginPending = false;
  };
  /** Sends the statement with what it carries; answered once (node-postgres may call back twice). */
  const send = (config: unknown, values: unknown, carries: Carries) =>
    new Promise((resolve, reject) => {
      const q = new Ends(config, values);
      q.carries = carries;
      let settled = false;
      q.callback = (err, res) => {
        if (settled) return;
        settled = true;
        if (err) return reject(err);
        if (q.rolledBack) return reject(new Error('the transaction had failed: COMMIT rolled it back'));
        if (carries.commit) state = 'committed';
        resolve(res);
      };
      query(q);
    });
  client.query = (...args: unknown[]): unknown => {
    const [config, values, callback] = args;
    if (state === 'committed') {
      if (isWord(config, values, 'commit')) {
        state = 'off';
        return Promise.resolve(answered('COMMIT'));
      }
      // The caller failed after the commit: its ROLLBACK only meets "no transaction in progress".
      if (isWord(config, values, 'rollback')) state = 'off';
      // Anything else would run outside the transaction: refused until the transaction's COMMIT or ROLLBACK.
      else
        return Promise.reject(new Error('statement after the transaction committed with its last statement'));
    }
    const plain = isPlain(config, values, callback);
    if (!beginPending && plain && isWord(config, values, 'begin')) {
      beginPending = true;
      return Promise.resolve(answered('BEGIN'));
    }
    const commit = state === 'armed' && plain;
    if (state === 'armed') state = 'off';
    if (beginPending) {
      beginPending = false;
      for (const word of ['commit', 'rollback'])
        if (isWord(config, values, word)) return Promise.resolve(answered(word.toUpperCase()));
      const name = (config as { name?: string } | null)?.name;
      if (plain && (!name || parsed()[name] !== undefined))
        return send(config, values, { begin: true, commit });
      // BEGIN alone first, then the statement as it would have gone: node-postgres runs a connection's queries one
      // after another in the order given. BEGIN fails only with the connection, and then so does the statement.
      (query('begin') as Promise<unknown>).catch(() => undefined);
    }
    if (commit) return send(config, values, { begin: false, commit: true });
    return query(...args);
  };
}

/**
 * Lets `lastStatementCommits` arm a transaction handle of another driver (PGlite's, pglite-tx.ts): `arm` is told
 * 'arm' before the last statement, and 'disarm' (no statement was sent) or 'reset' after.
 */
export function armCommitWithLast(client: object, arm: (to: 'arm' | 'disarm' | 'reset') => void): void {
  (client as Client)[ARM] = arm;
}

/** A connection goes back to the pool as it came: nothing armed, nothing to answer (pg-pool's `release` event). */
export function resetCommitWithLast(client: Client): void {
  client[ARM]?.('reset');
}

/**
 * Runs `run`, whose first statement must be the last of the transaction `tx`, with the COMMIT sent alongside it on
 * node-postgres (see above) and on PGlite (pglite-tx.ts); inside a nested transaction (a savepoint: its COMMIT would
 * end the outer one), as it is. After it resolves the transaction is committed: the caller returns, and nothing it does can roll
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
