/**
 * The queue between the gateway's subscription and the database: each gateway event is applied in the background
 * (with a few retries), and `settle` waits until every event received so far has been written.
 */
import type { GatewayEvent } from './gateway';

export interface EventQueue {
  /** Applies the event in the background (what the gateway subscription calls). */
  track(event: GatewayEvent): void;
  /** Resolves when every event tracked so far has been applied (or given up on). */
  settle(): Promise<void>;
}

const RETRIES = 2;

/**
 * Applies each event with `handle`, retrying a few times: an acknowledgement lost to a passing DB error would
 * otherwise leave a running device behind a session that gets refunded at its deadline.
 */
export function createEventQueue(handle: (event: GatewayEvent) => Promise<void>): EventQueue {
  const pending = new Set<Promise<void>>();
  const attempt = async (event: GatewayEvent) => {
    for (let i = 0; ; i++) {
      try {
        return await handle(event);
      } catch (err) {
        if (i >= RETRIES) throw err;
        await new Promise((r) => setTimeout(r, 200 * (i + 1)));
      }
    }
  };
  return {
    track(event) {
      const q = attempt(event).catch((err) =>
        console.error(`device event ${event.type} could not be applied:`, err),
      );
      pending.add(q);
      void q.finally(() => pending.delete(q));
    },
    async settle() {
      while (pending.size > 0) await Promise.all([...pending]);
    },
  };
}
