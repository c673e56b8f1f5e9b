/**
 * The member's running sessions on `/user/using`: load them (looking again shortly while a device is still
 * starting), and stop one early after a confirmation, reporting the refund of the unused minutes the server booked.
 * HTTP and navigation are supplied at the edge with `provide(...)`.
 */
import { assign, fromPromise, setup, type SnapshotFrom } from 'xstate';
import type { StopResponse, UsingSession } from '../domain/api';
import type { Outcome } from './pay.types';

export interface UsingList {
  items: UsingSession[];
  /** Server clock minus this device's clock, so countdowns do not trust the phone's clock. */
  skew_ms: number;
}

export interface UsingContext {
  list: UsingList | null;
  error: { code: string; message: string } | null;
  stopping: string | null;
  result:
    { ok: true; refund_fen: number; refund_to: 'wallet' | 'wechat' } | { ok: false; message: string } | null;
}

export type UsingEvent =
  | { type: 'refresh' }
  | { type: 'retry' }
  | { type: 'stop.ask'; order_no: string }
  | { type: 'stop.confirm' }
  | { type: 'stop.cancel' }
  | { type: 'signin.start' };

const notProvided = (name: string) => () => Promise.reject(new Error(`${name}: supply it with provide()`));

/** Owns the using page: the list, the polling while starting, and the stop with its refund. */
export const usingMachine = setup({
  types: { context: {} as UsingContext, events: {} as UsingEvent },
  actors: {
    loadUsing: fromPromise<Outcome<UsingList>, void>(notProvided('loadUsing')),
    stopSession: fromPromise<Outcome<StopResponse>, { order_no: string }>(notProvided('stopSession')),
  },
  actions: { goToSignIn: () => {} },
  guards: {
    anyStarting: ({ context }) => Boolean(context.list?.items.some((i) => i.status === 'starting')),
  },
  delays: { startingPoll: 2000 },
}).createMachine({
  id: 'using',
  context: { list: null, error: null, stopping: null, result: null },
  initial: 'loading',
  states: {
    loading: {
      description: 'The list stays on screen while it reloads.',
      invoke: {
        id: 'loadUsing',
        src: 'loadUsing',
        onDone: [
          {
            guard: ({ event }) => event.output.ok,
            target: 'ready',
            actions: assign({
              list: ({ event }) => (event.output.ok ? event.output.value : null),
              error: null,
            }),
          },
          {
            guard: ({ event }) => !event.output.ok && event.output.error.status === 401,
            target: 'signedOut',
          },
          {
            target: 'failed',
            actions: assign({
              error: ({ event }) =>
                event.output.ok
                  ? null
                  : { code: event.output.error.code, message: event.output.error.message },
            }),
          },
        ],
        onError: {
          target: 'failed',
          actions: assign({ error: { code: 'UNEXPECTED', message: '加载失败，请重试' } }),
        },
      },
    },
    ready: {
      after: { startingPoll: { guard: 'anyStarting', target: 'loading' } },
      on: {
        refresh: 'loading',
        'stop.ask': {
          guard: ({ context, event }) =>
            Boolean(context.list?.items.some((i) => i.order_no === event.order_no && i.status === 'running')),
          target: 'confirmingStop',
          actions: assign({ stopping: ({ event }) => event.order_no, result: null }),
        },
      },
    },
    confirmingStop: {
      on: {
        'stop.confirm': 'stopping',
        'stop.cancel': { target: 'ready', actions: assign({ stopping: null }) },
      },
    },
    stopping: {
      invoke: {
        id: 'stopSession',
        src: 'stopSession',
        input: ({ context }) => ({ order_no: context.stopping ?? '' }),
        onDone: {
          target: 'loading',
          actions: assign({
            stopping: null,
            result: ({ event }) =>
              event.output.ok
                ? {
                    ok: true as const,
                    refund_fen: event.output.value.refund_fen,
                    refund_to: event.output.value.refund_to ?? 'wallet',
                  }
                : { ok: false as const, message: event.output.error.message },
          }),
        },
        onError: {
          target: 'loading',
          actions: assign({ stopping: null, result: { ok: false, message: '结束失败，请重试' } }),
        },
      },
    },
    failed: { on: { retry: 'loading' } },
    signedOut: { on: { 'signin.start': { actions: 'goToSignIn' } } },
  },
});

export type UsingSnapshot = SnapshotFrom<typeof usingMachine>;
