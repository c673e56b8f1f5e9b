/**
 * PGlite's engine calls take turns with the event loop (server/db/pglite-turns.ts, docs/performance.md "Bounded
 * turns on PGlite"): gated calls run one after another in the order given, a failing one does not stop the next,
 * and once the budget has passed the event loop gets a turn before the next call (with a budget of 0, between every
 * two); within it, calls that never wait for I/O run back to back in one turn. On a PGlite database opened as the
 * server opens it: statements and transactions give the event loop turns while they queue, and keep their order;
 * closing waits for the calls already given.
 */
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgliteDatabase, type Database } from '../../../server/db/client';
import { engineTurns } from '../../../server/db/pglite-turns';

/** Counts the event loop's turns (one `setImmediate` each) until stopped; `at()` is the count so far. */
function turnCounter() {
  let turns = 0;
  let stopped = false;
  const tick = () => {
    if (stopped) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  return {
    at: () => turns,
    stop: () => {
      stopped = true;
    },
  };
}

describe('engineTurns', () => {
  it('runs calls one after another in the order given, a failure not stopping the next', async () => {
    const gate = engineTurns(0);
    const log: string[] = [];
    const call = (name: string, fail = false) =>
      gate(async () => {
        log.push(`${name} start`);
        await Promise.resolve();
        log.push(`${name} end`);
        if (fail) throw new Error(name);
        return name;
      });
    const results = await Promise.allSettled([call('a'), call('b', true), call('c')]);
    expect(log).toEqual(['a start', 'a end', 'b start', 'b end', 'c start', 'c end']);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });

  it('with a budget of 0, lets the event loop turn between every two calls', async () => {
    const gate = engineTurns(0);
    const turns = turnCounter();
    const seen: number[] = [];
    await Promise.all(Array.from({ length: 10 }, () => gate(async () => void seen.push(turns.at()))));
    turns.stop();
    for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThan(seen[i - 1]!);
  });

  it('yields once the budget has passed, not before', async () => {
    const gate = engineTurns(50);
    const turns = turnCounter();
    const seen: number[] = [];
    const busy = (ms: number) => {
      const until = performance.now() + ms;
      while (performance.now() < until);
    };
    // Ten calls of 8 ms each: more than the budget in all, two of them well within it.
    await Promise.all(
      Array.from({ length: 10 }, () =>
        gate(async () => {
          seen.push(turns.at());
          busy(8);
        }),
      ),
    );
    turns.stop();
    const distinct = new Set(seen).size;
    expect(distinct).toBeGreaterThan(1);
    expect(distinct).toBeLessThan(seen.length);
  });

  it('within the budget, runs the calls back to back in one turn', async () => {
    const gate = engineTurns(60_000);
    await new Promise((r) => setImmediate(r));
    const turns = turnCounter();
    const seen: number[] = [];
    await Promise.all(Array.from({ length: 10 }, () => gate(async () => void seen.push(turns.at()))));
    turns.stop();
    expect(new Set(seen).size).toBe(1);
  });
});

describe('a PGlite database opened as the server opens it', () => {
  let pg: PGlite;
  let database: Database;

  beforeAll(async () => {
    pg = new PGlite();
    await pg.waitReady;
    database = await pgliteDatabase(pg, { turnMs: 0 });
    await database.db.execute(sql`create table t (id serial primary key, n int not null)`);
  }, 60_000);
  afterAll(() => pg?.close());

  it('closes after the calls already given, which all answer', async () => {
    const other = new PGlite();
    await other.waitReady;
    const { db, close } = await pgliteDatabase(other, { turnMs: 0 });
    // `.then` starts each (Drizzle's queries run when awaited), all before the close.
    const asked = Array.from({ length: 5 }, (_, i) => db.execute(sql`select ${i}::int as i`).then((r) => r));
    await close();
    const answers = await Promise.allSettled(asked);
    expect(answers.map((a) => a.status)).toEqual(Array(5).fill('fulfilled'));
    expect(other.closed).toBe(true);
  });

  it('gives the event loop turns while statements and transactions queue, and keeps their order', async () => {
    const { db } = database;
    const turns = turnCounter();
    const seen: number[] = [];
    const work = Array.from({ length: 12 }, (_, i) =>
      i % 3 === 0
        ? db.transaction(async (tx) => {
            await tx.execute(sql`insert into t (n) values (${i})`);
            await tx.execute(sql`insert into t (n) values (${i + 100})`);
            seen.push(turns.at());
          })
        : db.execute(sql`select count(*)::int as c from t`).then((r) => {
            seen.push(turns.at());
            return (r as unknown as { rows: { c: number }[] }).rows[0]!.c;
          }),
    );
    const results = await Promise.all(work);
    turns.stop();
    for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThan(seen[i - 1]!);
    // Each count saw exactly the transactions given before it.
    results.forEach((c, i) => {
      if (i % 3 !== 0) expect(c).toBe(2 * (Math.floor(i / 3) + 1));
    });
  });
});
