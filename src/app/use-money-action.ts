/**
 * Runs the money-action machine for one screen: `send` is a call over `src/http` turned into a value by
 * `toOutcome`, `validate` checks the input, and a fresh Idempotency-Key comes from `crypto.randomUUID`.
 */
import { useActorRef, useSelector } from '@xstate/react';
import { useMemo } from 'react';
import { fromPromise } from 'xstate';
import { toOutcome } from '../http/outcome';
import { moneyActionMachine, type SendInput } from '../machines/money-action.machine';
import * as sel from '../machines/money-action.selectors';

/** A random key; `crypto.randomUUID` needs a secure context, so fall back to random digits elsewhere. */
function newKey(): string {
  if (typeof crypto !== 'undefined' && typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  return `k${Date.now().toString(36)}${Math.random().toString(36).slice(2)}`;
}

export function useMoneyAction(opts: {
  validate: (action: string, value: string) => string | null;
  send: (input: SendInput) => Promise<unknown>;
}) {
  const logic = useMemo(
    () =>
      moneyActionMachine.provide({
        actors: { send: fromPromise(({ input }: { input: SendInput }) => toOutcome(() => opts.send(input))) },
      }),
    // eslint-disable-next-line react-hooks/exhaustive-deps -- one machine per mounted screen
    [],
  );
  const actor = useActorRef(logic, { input: { validate: opts.validate, newKey } });
  const view = useSelector(actor, (s) => ({
    open: sel.selectIsOpen(s),
    editing: sel.selectIsEditing(s),
    confirming: sel.selectIsConfirming(s),
    sending: sel.selectIsSending(s),
    done: sel.selectIsDone(s),
    failed: sel.selectIsFailed(s),
    canRetry: sel.selectCanRetry(s),
    action: sel.selectAction(s),
    target: sel.selectTarget(s),
    value: sel.selectValue(s),
    error: sel.selectError(s),
    failure: sel.selectFailure(s),
    result: sel.selectResult(s),
  }));
  return { actor, view, send: actor.send };
}
