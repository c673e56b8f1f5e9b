/**
 * A PGlite transaction whose BEGIN goes into the engine with its first statement, and whose COMMIT, when the caller
 * armed it (`lastStatementCommits`, commit-with-last.ts), goes with its last one (docs/performance.md, "BEGIN and
 * COMMIT ride with the statements on PGlite"; docs/decisions.md D37).
 *
 * PGlite's own `transaction()` sends BEGIN and COMMIT as simple queries, each followed by a Sync sent on its own:
 * four calls into the engine and the JavaScript protocol layer around a pay's two statements. Here BEGIN's Parse,
 * Bind and Execute (the unnamed statement) precede the first statement's messages, and COMMIT's follow the armed
 * statement's, under that statement's one Sync, as JDBC drivers send BEGIN and as the node-postgres path sends
 * COMMIT (D32). PostgreSQL runs the messages in order, so the semantics are those of the separate calls:
 * - the first statement fails: BEGIN has run, the transaction is left failed, and the ROLLBACK below ends it;
 * - the armed statement fails: PostgreSQL skips everything up to the Sync, COMMIT included; the transaction is
 *   left failed, the error goes to the caller, and the ROLLBACK below ends it; nothing is written;
 * - the armed statement succeeds: the transaction is committed, the statement's rows are the answer, and any
 *   further statement on this transaction is refused (it would run outside it); the function's return then
 *   commits nothing more;
 * - a transaction that sends no statement sends no BEGIN and no COMMIT.
 * The locks are PGlite's: the whole transaction holds its transaction lock, each statement its query lock.
 */
import {
  parse,
  protocol,
  type PGlite,
  type QueryOptions,
  type Results,
  type Transaction,
} from '@electric-sql/pglite';
import { armCommitWithLast } from './commit-with-last';
import { concat, run, type Around, type PGliteInternals } from './pglite-query';

const { serialize } = protocol;

/** A simple query (one or more statements, no parameters) and its Sync, in one call; errors as PGlite's. */
async function simple(pg: PGlite, text: string, options?: QueryOptions): Promise<Results[]> {
  const buf = concat([serialize.query(text), serialize.sync()]);
  const messages = await pg.execProtocolStream(buf, { syncToFs: false, throwOnError: false });
  const error = messages.find((m) => m.name === 'error');
  if (error) throw Object.assign(error, { query: text, params: undefined, queryOptions: options });
  return parse.parseResults(messages, (pg as unknown as PGliteInternals).parsers, options);
}

type State = 'open' | 'armed' | 'committed' | 'closed';

/** `transaction()` for a PGlite instance whose internals `supportsOneCall` found. */
export function oneCallTransaction(pg: PGlite) {
  const p = pg as unknown as PGliteInternals;
  return async <T>(fn: (tx: Transaction) => Promise<T>): Promise<T> => {
    await p._checkReady();
    return p._runExclusiveTransaction(async () => {
      let begun = false;
      // A statement carrying BEGIN was given (it may still wait for the query lock): the end must follow it.
      let issued = false;
      let state: State = 'open';
      const usable = () => {
        if (state === 'closed') throw new Error('Transaction is closed');
        if (state === 'committed')
          throw new Error('statement after the transaction committed with its last statement');
      };
      const query = async <R>(text: string, params: unknown[] = [], options?: QueryOptions) => {
        usable();
        const around: Around = { begin: !begun, commit: state === 'armed' };
        if (around.begin) issued = true;
        if (around.commit) state = 'open';
        try {
          return (await p._runExclusiveQuery(() => run(pg, text, params, options, around))) as Results<R>;
        } finally {
          if (around.sent) begun = true;
          if (around.ended === 'COMMIT') state = 'committed';
          // COMMIT answered ROLLBACK: the transaction had failed before this statement (which then failed too).
          else if (around.ended !== undefined) state = 'closed';
        }
      };
      const end = async (how: 'COMMIT' | 'ROLLBACK') => {
        state = 'closed';
        // Queued behind any statement still waiting (PGlite's lock is first come, first served); with none sent,
        // PostgreSQL answers it with a notice only.
        if (!begun && !issued) return how;
        const [r] = await p._runExclusiveQuery(() => simple(pg, how));
        return r?.command;
      };
      const tx: Transaction = {
        query,
        sql: (strings, ...params) =>
          query(
            strings.slice(1).reduce((text, s, i) => `${text}$${i + 1}${s}`, strings[0]!),
            params,
          ),
        async exec(text, options) {
          usable();
          if (!begun) {
            issued = true;
            await p._runExclusiveQuery(() => simple(pg, 'BEGIN'));
            begun = true;
          }
          return p._runExclusiveQuery(() => simple(pg, text, options));
        },
        async rollback() {
          usable();
          await end('ROLLBACK');
        },
        listen: (channel, callback) => pg.listen(channel, callback, tx),
        get closed() {
          return state === 'committed' || state === 'closed';
        },
      };
      armCommitWithLast(tx, (to) => {
        if (to === 'arm' && state === 'open') state = 'armed';
        else if (to !== 'arm' && state === 'armed') state = 'open';
      });
      try {
        const result = await fn(tx);
        if (state === 'open' || state === 'armed') {
          if ((await end('COMMIT')) === 'ROLLBACK')
            throw new Error('the transaction had failed: COMMIT rolled it back');
        }
        return result;
      } catch (err) {
        if (state === 'open' || state === 'armed') await end('ROLLBACK');
        throw err;
      }
    });
  };
}
