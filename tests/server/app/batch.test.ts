/** server/lib/batch.ts: the first call runs alone and at once; calls made meanwhile run together next. */
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

describe('batched', () => {
  it('runs a first call at once, alone, and the calls made meanwhile as one batch after it', async () => {
    const g = gated();
    const call = batched(g.run);
    const first = call(1);
    const rest = [call(2), call(3), call(4)];
    expect(g.batches).toEqual([[1]]);
    await g.release();
    expect(await first).toBe(2);
    await g.release();
    expect(await Promise.all(rest)).toEqual([4, 6, 8]);
    expect(g.batches).toEqual([[1], [2, 3, 4]]);
    // Quiet again: the next call runs at once, alone.
    const later = call(5);
    expect(g.batches.at(-1)).toEqual([5]);
    await g.release();
    expect(await later).toBe(10);
  });

  it('splits what waits into batches of at most `max` items', async () => {
    const g = gated();
    const call = batched(g.run, 2);
    const all = [call(1), call(2), call(3), call(4), call(5)];
    for (let i = 0; i < 3; i++) await g.release();
    expect(await Promise.all(all)).toEqual([2, 4, 6, 8, 10]);
    expect(g.batches).toEqual([[1], [2, 3], [4, 5]]);
  });

  it('runs the items of a failed batch one by one, so only the bad one fails', async () => {
    const g = gated();
    const call = batched(g.run);
    const first = call(1);
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
