/**
 * Calls that arrive together go in one run (docs/decisions.md D30 and D33). The calls of one turn of the event loop
 * run together at its end (`setImmediate`, not a timer: the same turn's I/O is done, nothing waits longer); the
 * calls made while a run is in flight wait for it, then run as one batch (up to `max` items each). A quiet server
 * answers as before, and a busy one sends one statement for many items instead of one each. On PGlite the engine
 * answers within the turn, so every pay of a turn used to find the batch idle and mark its start command alone
 * (docs/performance.md, "Start commands of one turn in one statement").
 *
 * `run` gets the items and answers one result per item, in the same order. When a batch of several fails, each item
 * is run again on its own, so one bad item (or a deadlock between two instances' batches) fails only its own call.
 */
export function batched<T, R>(run: (items: T[]) => Promise<R[]>, max = 64): (item: T) => Promise<R> {
  type Waiter = { item: T; ok: (r: R) => void; fail: (err: unknown) => void };
  let waiting: Waiter[] = [];
  let running = false;

  const runOne = (w: Waiter) =>
    run([w.item]).then(
      (r) => w.ok(r[0] as R),
      (err: unknown) => w.fail(err),
    );

  const runBatch = async (batch: Waiter[]) => {
    try {
      const results = await run(batch.map((w) => w.item));
      if (results.length !== batch.length) throw new Error('batch: one result per item expected');
      batch.forEach((w, i) => w.ok(results[i] as R));
    } catch (err) {
      if (batch.length === 1) batch[0]!.fail(err);
      else for (const w of batch) await runOne(w);
    }
  };

  const drain = async () => {
    running = true;
    while (waiting.length > 0) {
      const batch = waiting.slice(0, max);
      waiting = waiting.slice(max);
      await runBatch(batch);
    }
    running = false;
  };

  return (item) =>
    new Promise<R>((ok, fail) => {
      waiting.push({ item, ok, fail });
      if (!running) {
        running = true;
        setImmediate(() => void drain());
      }
    });
}

/**
 * A batch statement's rows handed back to its items: `answer(key)` gives the row with that key to the first item that
 * asks and null to any later one (the same item twice in one batch changed its row once).
 */
export function rowsByKey<R>(rows: readonly R[], keyOf: (row: R) => string | number) {
  const left = new Map(rows.map((r) => [keyOf(r), r]));
  return (key: string | number): R | null => {
    const r = left.get(key) ?? null;
    left.delete(key);
    return r;
  };
}
