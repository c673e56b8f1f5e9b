/**
 * One statement on PGlite in one call into its engine (docs/performance.md, "Each PGlite statement in one call into
 * the engine"; docs/decisions.md D26).
 *
 * PGlite's own `query()` drives the extended protocol one message at a time: Parse, Describe (to learn the
 * parameters' types), Bind, Describe, Execute, Sync, each a separate pass through the WebAssembly engine and the
 * JavaScript protocol layer. Here the five messages the statement needs (Parse, Bind, Describe, Execute, Sync) go
 * in one buffer, as node-postgres sends them over its socket, and the parameters are text of unspecified type
 * serialized by node-postgres's own `prepareValue`, so PostgreSQL infers their types exactly as it does for the
 * server's PostgreSQL path. The answer is parsed by PGlite's own `parseResults` with the caller's options (Drizzle's
 * row mode and parsers), so rows come back as from `query()`. The locks are PGlite's: a statement outside a
 * transaction waits for any open transaction, one inside runs on the transaction's turn. A statement text that
 * repeats runs from a named prepared statement, without Parse (docs/decisions.md D27).
 */
import { parse, protocol, type PGlite, type QueryOptions, type Results } from '@electric-sql/pglite';
import pgUtils from 'pg/lib/utils.js';
import { isStalePlan } from './pg-prepared';

const { serialize } = protocol;

/** The parts of a PGlite instance this uses that its typings keep private. */
export interface PGliteInternals {
  parsers: Record<number, (value: string, typeId?: number) => unknown>;
  _checkReady(): Promise<void>;
  _runExclusiveQuery<T>(fn: () => Promise<T>): Promise<T>;
  _runExclusiveTransaction<T>(fn: () => Promise<T>): Promise<T>;
}

const prepare = (v: unknown) => (v == null ? null : (pgUtils.prepareValue(v) as string | Buffer));

/** The protocol messages as one buffer, to go into the engine in one call. */
export function concat(parts: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Statements kept prepared in one PGlite's backend, by SQL text (least recently used first). */
interface Prepared {
  names: Map<string, string>;
  /** Names let go of (evicted, or their plan went stale), closed with the next statement. */
  closing: string[];
  next: number;
}

/** How many statements one PGlite keeps prepared; the least recently used is closed to make room. */
export const PREPARED_MAX = 200;

const preparedOf = new WeakMap<PGlite, Prepared>();

function prepared(pg: PGlite): Prepared {
  let p = preparedOf.get(pg);
  if (!p) preparedOf.set(pg, (p = { names: new Map(), closing: [], next: 0 }));
  return p;
}

/**
 * What a transaction's statement carries besides itself (pglite-tx.ts): the transaction's BEGIN before it, its
 * COMMIT after it, all in the same call and under one Sync. `ended` is set to the COMMIT's command tag when it ran
 * (`COMMIT`, or `ROLLBACK` if the transaction had failed before); `sent` once the messages went to the engine (a
 * parameter that cannot be serialized fails the statement before).
 */
export interface Around {
  begin?: boolean;
  commit?: boolean;
  sent?: boolean;
  ended?: string;
}

/** A statement without parameters as the unnamed statement, run once: Parse, Bind, Execute. */
const unnamed = (text: string) => [serialize.parse({ text }), serialize.bind({}), serialize.execute({})];

const isTag = (m: { name: string }) => m.name === 'commandComplete';

/**
 * Runs one statement (already holding PGlite's query lock). A statement text seen before runs from its prepared
 * statement (Bind, Describe, Execute, Sync: no parse, analysis or planning again); a new one is parsed under a name
 * first, and kept once PostgreSQL confirms the parse. Errors carry the query and parameters, as PGlite's.
 */
export async function run(
  pg: PGlite,
  text: string,
  params: unknown[],
  options?: QueryOptions,
  around: Around = {},
): Promise<Results> {
  const cache = prepared(pg);
  const parts: Uint8Array[] = around.begin ? unnamed('begin') : [];
  // Closing a statement that does not exist is not an error, and Close runs in a failed transaction too.
  for (const n of cache.closing.splice(0)) parts.push(serialize.close({ type: 'S', name: n }));
  let name = cache.names.get(text);
  const fresh = name === undefined;
  if (name === undefined) {
    if (cache.names.size >= PREPARED_MAX) {
      const [oldText, oldName] = cache.names.entries().next().value as [string, string];
      cache.names.delete(oldText);
      parts.push(serialize.close({ type: 'S', name: oldName }));
    }
    name = `q${cache.next++}`;
    parts.push(serialize.parse({ name, text }));
  } else {
    // Most recently used last.
    cache.names.delete(text);
    cache.names.set(text, name);
  }
  parts.push(
    serialize.bind({ statement: name, values: params.map(prepare) }),
    serialize.describe({ type: 'P' }),
    serialize.execute({}),
    ...(around.commit ? unnamed('commit') : []),
    serialize.sync(),
  );
  const buffer = concat(parts);
  around.sent = true;
  const all = await pg.execProtocolStream(buffer, { syncToFs: false, throwOnError: false });
  // BEGIN's answer (parse, bind, its command tag) comes first; the statement's from there.
  const messages = around.begin ? all.slice(all.findIndex(isTag) + 1) : all;
  let error: (Error & { code?: string }) | undefined;
  let tags = 0;
  for (const m of messages) {
    if (m.name === 'parseComplete' && fresh && tags === 0) cache.names.set(text, name);
    else if (m.name === 'error' && !error) error = m as unknown as Error & { code?: string };
    else if (isTag(m) && ++tags === 2) around.ended = (m as unknown as { text: string }).text;
  }
  if (error) {
    if (!fresh && isStalePlan(error)) {
      cache.names.delete(text);
      cache.closing.push(name);
    }
    throw Object.assign(error, { query: text, params, queryOptions: options });
  }
  const parsers = mergedParsers((pg as unknown as PGliteInternals).parsers, options?.parsers);
  return parse.parseResults(messages, parsers, { ...options, parsers: undefined })[0]!;
}

type Parsers = PGliteInternals['parsers'];
const merged = new WeakMap<Parsers, Map<string, Parsers>>();
const byObject = new WeakMap<object, { defaults: Parsers; out: Parsers }>();

/**
 * PGlite's default parsers with the caller's on top, merged once per kind of caller. `parseResults` would copy the
 * whole default table (every type and its array type) into a new object on each statement, since Drizzle passes its
 * own parsers (dates left as text) on every query, in a new object each time but always the same functions; that
 * copy was the largest single cost of PGlite's JavaScript layer in the pay bench's profile.
 */
function mergedParsers(defaults: Parsers, own: QueryOptions['parsers']): Parsers {
  if (!own) return defaults;
  // A statement built once (prebuilt.ts) passes the same parsers object on every call.
  const same = byObject.get(own);
  if (same?.defaults === defaults) return same.out;
  let byKind = merged.get(defaults);
  if (!byKind) merged.set(defaults, (byKind = new Map()));
  const kind = Object.entries(own)
    .map(([type, fn]) => `${type}:${String(fn)}`)
    .join('\n');
  let out = byKind.get(kind);
  if (!out) {
    out = { ...defaults, ...(own as Parsers) };
    if (byKind.size >= 32) byKind.clear();
    byKind.set(kind, out);
  }
  byObject.set(own, { defaults, out });
  return out;
}

/**
 * Whether this PGlite build has the internals the one-call path uses (its query and transaction locks, its parsers):
 * a later PGlite without them keeps its own `query()` (slower, same answers) instead of failing; the test of this
 * module fails on such a build, so an upgrade cannot drop the path unnoticed (docs/decisions.md D26).
 */
export function supportsOneCall(pg: PGlite): boolean {
  const p = pg as unknown as Partial<Record<keyof PGliteInternals, unknown>>;
  return (
    typeof p._runExclusiveQuery === 'function' &&
    typeof p._runExclusiveTransaction === 'function' &&
    typeof p._checkReady === 'function' &&
    typeof p.parsers === 'object' &&
    typeof pg.execProtocolStream === 'function'
  );
}

/** `query()` for the PGlite instance itself: waits for an open transaction, then syncs the files as PGlite does. */
export function oneCallQuery(pg: PGlite) {
  const p = pg as unknown as PGliteInternals;
  return async (text: string, params: unknown[] = [], options?: QueryOptions): Promise<Results> => {
    await p._checkReady();
    const out = await p._runExclusiveTransaction(() =>
      p._runExclusiveQuery(() => run(pg, text, params, options)),
    );
    await pg.syncToFs();
    return out;
  };
}
