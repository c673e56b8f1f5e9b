/**
 * server/lib/batch.ts: the calls of one turn of the event loop run together at its end; the calls made while that
 * runs, together next.
 */
import { describe, expect, it } from 'vitest';
import { batched, rowsByKey } from '../../../server/lib/batch';

/** A `run` that records each batch and answers when released (`release()`), doubling each item. */
function gated() {
  const batches: number[][] = [];
  const gates: (() => void)[] = [];
  const run = async (items: number[]) => {
    batches.push([...items]);
    await new Promise<void>((r) => gates.push(r));
    if (items.includes(-1)) throw new Error('bad item in batch');
    return items.map((i) => i * 2);
  };
  const release = async () => {
    while (gates.length === 0) await new Promise((r) => setImmediate(r));
    gates.shift()!();
  };
  return { batches, run, release };
}

/** The rest of this turn of the event loop (the batcher's own turn-end callback was queued first). */
const turn = () => new Promise((r) => setImmediate(r));

describe('batched', () => {
  it('runs the calls of one turn together at its end, and the calls made while they run as one batch after', async () => {
    const g = gated();
    const call = batched(g.run);
    const first = [call(1), call(2)];
    expect(g.batches).toEqual([]);
    await turn();
    expect(g.batches).toEqual([[1, 2]]);
    const rest = [call(3), call(4), call(5)];
    await g.release();
    expect(await Promise.all(first)).toEqual([2, 4]);
    await g.release();
    expect(await Promise.all(rest)).toEqual([6, 8, 10]);
    expect(g.batches).toEqual([
      [1, 2],
      [3, 4, 5],
    ]);
    // Quiet again: a lone call runs alone, at the end of its turn.
    const later = call(6);
    await turn();
    expect(g.batches.at(-1)).toEqual([6]);
    await g.release();
    expect(await later).toBe(12);
  });

  it('splits what waits into batches of at most `max` items', async () => {
    const g = gated();
    const call = batched(g.run, 2);
    const all = [call(1), call(2), call(3), call(4), call(5)];
    for (let i = 0; i < 3; i++) await g.release();
    expect(await Promise.all(all)).toEqual([2, 4, 6, 8, 10]);
    expect(g.batches).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('runs the items of a failed batch one by one, so only the bad one fails', async () => {
    const g = gated();
    const call = batched(g.run);
    const first = call(1);
    await turn();
    const good = call(7);
    const bad = call(-1);
    await g.release(); // [1]
    await g.release(); // [7, -1] fails
    await g.release(); // [7]
    await g.release(); // [-1] fails
    expect(await first).toBe(2);
    expect(await good).toBe(14);
    await expect(bad).rejects.toThrow('bad item in batch');
    expect(g.batches).toEqual([[1], [7, -1], [7], [-1]]);
    // The queue goes on after a failure.
    const next = call(3);
    await g.release();
    expect(await next).toBe(6);
  });

  it('fails the calls of a batch whose run answers the wrong number of results', async () => {
    const call = batched(async (items: number[]) => items.slice(1));
    await expect(call(1)).rejects.toThrow('one result per item');
  });
});

describe('rowsByKey', () => {
  it('gives each row to the first item that asks for its key, null to later ones and to missing keys', () => {
    const answer = rowsByKey([{ id: 1 }, { id: 2 }], (r) => r.id);
    expect([1, 1, 2, 3].map((k) => answer(k))).toEqual([{ id: 1 }, null, { id: 2 }, null]);
  });
});
