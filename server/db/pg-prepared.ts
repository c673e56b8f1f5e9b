/**
 * Named prepared statements on node-postgres (docs/performance.md, "Statements stay prepared"). A statement text
 * seen a second time in this process gets a name; each pooled connection then parses and plans it once and runs
 * it again with Bind and Execute only, as PGlite's one-call path does (pglite-query.ts). node-postgres keeps the
 * per-connection record of what it parsed, and re-parses a name whose Parse failed.
 *
 * Limits: at most PG_PREPARED_MAX names per connection (later texts run unnamed there); a statement whose table
 * changed shape under it (SQLSTATE 0A000, e.g. another instance migrated), or whose values node-postgres could not
 * send, gets a new name, so its next run parses afresh instead of failing on that connection forever. A pooler
 * that does not keep prepared statements per client (PgBouncer in transaction mode before 1.21) needs
 * DATABASE_PREPARED=off.
 */
export const PG_PREPARED_MAX = 200;
/**
 * Texts remembered for their first sighting, by count and by their total length (a bulk insert of many rows is a
 * long text); the record starts over when either is reached.
 */
export const SIGHTINGS_MAX = 2000;
export const SIGHTINGS_MAX_CHARS = 4_000_000;

type Callback = (err: Error | null, res?: unknown) => void;
interface QueryConfig {
  text: string;
  name?: string;
  values?: unknown[];
  submit?: unknown;
  [k: string]: unknown;
}
interface Queryable {
  query(...args: unknown[]): unknown;
}

/** Which texts have names, shared by every connection of one pool. */
export interface StatementNames {
  /** The name for this text: undefined on its first sighting. */
  nameFor(text: string): string | undefined;
  /** The text's prepared plan went stale: the next run uses a new name. */
  renew(text: string): void;
}

export function statementNames(): StatementNames {
  const seen = new Set<string>();
  let seenChars = 0;
  const named = new Map<string, string>();
  let next = 0;
  return {
    nameFor(text) {
      const name = named.get(text);
      if (name !== undefined) return name;
      if (!seen.has(text)) {
        if (seen.size >= SIGHTINGS_MAX || seenChars + text.length > SIGHTINGS_MAX_CHARS) {
          seen.clear();
          seenChars = 0;
        }
        seen.add(text);
        seenChars += text.length;
        return undefined;
      }
      seen.delete(text);
      seenChars -= text.length;
      const fresh = `s${next++}`;
      named.set(text, fresh);
      return fresh;
    },
    renew(text) {
      if (named.has(text)) named.set(text, `s${next++}`);
    },
  };
}

/** SQLSTATE 0A000 "cached plan must not change result type": a table the statement reads changed shape. */
export const isStalePlan = (err: unknown) => (err as { code?: string } | null)?.code === '0A000';

/**
 * After this error the name must not be used again on that connection: a stale plan (0A000); a statement the server
 * no longer has (26000); or a failure in node-postgres before the statement left (no SQLSTATE: a value it could not
 * serialize), after which it closes the prepared statement on the server but still counts it as parsed.
 */
const needsNewName = (err: unknown) => {
  const code = (err as { code?: unknown } | null)?.code;
  return code === undefined || code === '0A000' || code === '26000';
};

/** Wraps one connection's `query` so repeated texts run as named statements. */
export function namePreparedStatements(client: Queryable, names: StatementNames): void {
  const orig = client.query.bind(client) as (...args: unknown[]) => unknown;
  const used = new Set<string>();
  client.query = (...args: unknown[]) => {
    const [first, second] = args;
    const config: QueryConfig | undefined =
      typeof first === 'string'
        ? { text: first }
        : first && typeof first === 'object' && typeof (first as QueryConfig).text === 'string'
          ? (first as QueryConfig)
          : undefined;
    const values = Array.isArray(second) ? (second as unknown[]) : config?.values;
    // Streams and cursors (submittable), named queries and statements without parameters (BEGIN, COMMIT, DDL) pass
    // as they are.
    if (!config || config.name || config.submit || !values || values.length === 0) return orig(...args);
    const name = names.nameFor(config.text);
    if (name === undefined || (!used.has(name) && used.size >= PG_PREPARED_MAX)) return orig(...args);
    used.add(name);
    const named = { ...config, name, values };
    const last = args[args.length - 1];
    const cb = typeof last === 'function' ? (last as Callback) : undefined;
    const onError = (err: unknown) => {
      if (needsNewName(err)) names.renew(config.text);
    };
    if (cb) {
      return orig(named, (err: Error | null, res?: unknown) => {
        if (err) onError(err);
        cb(err, res);
      });
    }
    return (orig(named) as Promise<unknown>).catch((err: unknown) => {
      onError(err);
      throw err;
    });
  };
}
