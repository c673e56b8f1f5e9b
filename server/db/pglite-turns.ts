/**
 * PGlite's engine calls take turns with the event loop (docs/performance.md, "Bounded turns on PGlite"; D36).
 *
 * PGlite runs PostgreSQL on the server's own thread and never waits for I/O: a statement is one synchronous call
 * into WebAssembly, and the promise it answers resolves in a microtask. Sixteen pays in flight then run all their
 * statements, one after another, inside a single turn of the event loop, and that turn grew to 30–60 ms under the
 * bench's load. Node accepts at most one new connection per turn (libuv since 1.45), and reads requests only
 * between turns: sixteen connections opened at once were answered one turn apart, the last after half a second.
 *
 * Here every top-level call into the engine (a statement outside a transaction, a whole transaction) waits for the
 * one before it, as PGlite's own lock already makes it wait; and once `turnMs` have passed since the gate last
 * yielded, the next call first yields (`setImmediate`). A yield made while the loop handles I/O (a request's
 * handler, an MQTT message) comes back in the same turn's check phase; the next one, made from there, comes back
 * after the loop's next poll for I/O (connections accepted, requests read, timers run). A run of engine calls then
 * keeps the loop from its I/O for about twice `turnMs` plus one transaction at most, besides the requests' own
 * code. The order of the calls is the order PGlite's lock gave them; a transaction's own statements run on its
 * turn, without waiting here.
 */

/** How long engine calls may run back to back before the event loop gets a turn (ms). */
export const TURN_MS = 5;

/**
 * A gate for engine calls: `gate(run)` runs `run` after every call gated before it has settled, first yielding to
 * the event loop when `turnMs` have passed since it last did. 0 yields before every call.
 */
export function engineTurns(turnMs: number = TURN_MS) {
  let tail: Promise<unknown> = Promise.resolve();
  let since = performance.now();
  const yieldIfDue = (): Promise<void> | undefined => {
    if (performance.now() - since < turnMs) return undefined;
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        since = performance.now();
        resolve();
      }),
    );
  };
  return function gate<T>(run: () => Promise<T>): Promise<T> {
    const result = tail.then(yieldIfDue).then(run);
    tail = result.catch(() => undefined);
    return result;
  };
}
