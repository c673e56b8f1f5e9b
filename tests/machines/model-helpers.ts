/**
 * Shared pieces of the shell's model-based tests: deferred promise actors that a test settles with the model's
 * `xstate.done.actor.*` / `xstate.error.actor.*` events, and a player that applies one model step to a live actor.
 */
import { fromPromise, type AnyActorRef, type AnyEventObject } from 'xstate';

export interface Deferred<T> {
  logic: ReturnType<typeof fromPromise<T, unknown>>;
  settle(event: AnyEventObject): boolean;
  pending(): number;
}

/** A promise actor whose runs wait until the test resolves or rejects them (in start order). */
export function deferredActor<T>(): Deferred<T> {
  const waiting: { resolve: (v: T) => void; reject: (e: unknown) => void }[] = [];
  return {
    logic: fromPromise<T, unknown>(
      () =>
        new Promise<T>((resolve, reject) => {
          waiting.push({ resolve, reject });
        }),
    ),
    settle(event) {
      // The newest call: an invocation that was re-entered left its dropped call behind.
      const next = waiting.pop();
      if (!next) return false;
      if (event.type.startsWith('xstate.done.actor.'))
        next.resolve((event as unknown as { output: T }).output);
      else next.reject((event as { error?: unknown }).error ?? new Error('failed'));
      return true;
    },
    pending: () => waiting.length,
  };
}

export const flush = () => new Promise<void>((r) => setTimeout(r, 0));

/** Plays one model step: internal actor events settle the deferred actor, the others are sent. */
export async function playStep(actor: AnyActorRef, event: AnyEventObject, deferred?: Deferred<unknown>) {
  if (event.type.startsWith('xstate.done.actor.') || event.type.startsWith('xstate.error.actor.')) {
    if (!deferred?.settle(event)) throw new Error(`no running actor to settle for ${event.type}`);
    await flush();
    await flush();
  } else {
    actor.send(event);
  }
}
