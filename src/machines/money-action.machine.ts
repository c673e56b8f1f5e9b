/**
 * One money-moving action, confirmed before it is sent: a withdrawal request on `/wallet`, an approval, a
 * rejection with a reason or a payout with a reference on `/merchant/withdrawals`.
 *
 * idle → (open) editing → (submit, valid) confirming → (confirm) sending → done | failed; an action without input
 * opens straight on confirming. The Idempotency-Key is made when the action is first confirmed and kept until the
 * input changes or the action succeeds: a retry after a lost answer (network, timeout, 5xx) and a double tap send
 * the same key, so the server creates one request. No React, no DOM: the edge provides `send` and `newKey`.
 */
import { assign, fromPromise, setup, type SnapshotFrom } from 'xstate';
import type { Outcome, RequestError } from '../domain/outcome';

export interface MoneyActionInput {
  /** Checks the input; a message, or null when it may be sent. */
  validate: (action: string, value: string) => string | null;
  /** A fresh Idempotency-Key. */
  newKey: () => string;
}

export interface SendInput {
  action: string;
  target: number | null;
  value: string;
  key: string;
}

export interface MoneyActionContext extends MoneyActionInput {
  action: string | null;
  target: number | null;
  /** The action takes an input (an amount, a reason, a reference). */
  needsInput: boolean;
  value: string;
  /** The input's problem, shown under it. */
  error: string | null;
  /** The failure of the last attempt. */
  failure: RequestError | null;
  key: string | null;
  result: unknown;
}

export type MoneyActionEvent =
  | { type: 'open'; action: string; target?: number | null; needsInput: boolean }
  | { type: 'change'; value: string }
  | { type: 'submit' }
  | { type: 'confirm' }
  | { type: 'back' }
  | { type: 'retry' }
  | { type: 'close' };

const UNEXPECTED: RequestError = { status: 0, code: 'UNEXPECTED', message: '出现意外错误，请稍后重试' };

/** No answer or a server fault: the request may have been made, so a retry must reuse the key. */
export const isRetryable = (f: RequestError | null) => f !== null && (f.status === 0 || f.status >= 500);

export const moneyActionMachine = setup({
  types: {
    context: {} as MoneyActionContext,
    events: {} as MoneyActionEvent,
    input: {} as MoneyActionInput,
  },
  actors: {
    send: fromPromise<Outcome<unknown>, SendInput>(async () => ({ ok: false, error: UNEXPECTED })),
  },
  guards: {
    needsInput: ({ event }) => event.type === 'open' && event.needsInput,
    valid: ({ context }) => context.validate(context.action ?? '', context.value) === null,
    retryable: ({ context }) => isRetryable(context.failure),
    hasInput: ({ context }) => context.needsInput,
    succeeded: ({ event }) => (event as { output?: Outcome<unknown> }).output?.ok === true,
  },
  actions: {
    start: assign(({ event }) =>
      event.type === 'open'
        ? {
            action: event.action,
            target: event.target ?? null,
            needsInput: event.needsInput,
            value: '',
            error: null,
            failure: null,
            key: null,
          }
        : {},
    ),
    keepKey: assign({ key: ({ context }) => context.key ?? context.newKey() }),
  },
}).createMachine({
  id: 'moneyAction',
  context: ({ input }) => ({
    ...input,
    action: null,
    target: null,
    needsInput: false,
    value: '',
    error: null,
    failure: null,
    key: null,
    result: null,
  }),
  initial: 'idle',
  states: {
    idle: {
      on: {
        open: [
          { guard: 'needsInput', target: 'editing', actions: 'start' },
          { target: 'confirming', actions: ['start', 'keepKey'] },
        ],
      },
    },
    editing: {
      on: {
        change: {
          actions: assign(({ event }) => ({ value: event.value, error: null, key: null })),
        },
        submit: [
          { guard: 'valid', target: 'confirming', actions: 'keepKey' },
          {
            actions: assign(({ context }) => ({
              error: context.validate(context.action ?? '', context.value),
            })),
          },
        ],
        close: 'idle',
      },
    },
    confirming: {
      on: {
        confirm: 'sending',
        back: [{ guard: 'hasInput', target: 'editing' }, { target: 'idle' }],
        close: 'idle',
      },
    },
    sending: {
      invoke: {
        id: 'send',
        src: 'send',
        input: ({ context }) => ({
          action: context.action ?? '',
          target: context.target,
          value: context.value,
          key: context.key ?? '',
        }),
        onDone: [
          {
            guard: 'succeeded',
            target: 'done',
            actions: assign(({ event }) => ({
              result: event.output.ok ? event.output.value : null,
              failure: null,
              key: null,
            })),
          },
          {
            target: 'failed',
            actions: assign(({ event }) => ({ failure: event.output.ok ? null : event.output.error })),
          },
        ],
        onError: { target: 'failed', actions: assign({ failure: UNEXPECTED }) },
      },
    },
    failed: {
      on: {
        retry: { guard: 'retryable', target: 'sending' },
        back: [{ guard: 'hasInput', target: 'editing' }, { target: 'idle' }],
        close: 'idle',
      },
    },
    done: {
      on: { close: 'idle' },
    },
  },
});

export type MoneyActionSnapshot = SnapshotFrom<typeof moneyActionMachine>;
