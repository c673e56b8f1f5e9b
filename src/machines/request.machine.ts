import { assign, fromPromise, setup, type SnapshotFrom } from 'xstate';
import type { RequestError } from '../domain/outcome';
import type { FetchResult, RequestContext, RequestEvent } from './request.types';

const UNEXPECTED: RequestError = { status: 0, code: 'UNEXPECTED', message: '出现意外错误，请稍后重试' };

/**
 * Owns one screen's data load: idle -> loading -> success | failure | unauthorized, with retry and refresh.
 * The call itself is the edge-provided `fetchData` actor (a function over `src/http`), which turns expected
 * failures into values; a staff 401 has already logged the session out in the HTTP client, so `unauthorized`
 * only stops the screen from offering a useless retry.
 */
export const requestMachine = setup({
  types: {
    context: {} as RequestContext,
    events: {} as RequestEvent,
    input: {} as { params?: unknown },
  },
  actors: {
    fetchData: fromPromise<FetchResult, { params: unknown }>(async () => ({
      ok: false,
      error: { status: 0, code: 'NOT_CONFIGURED', message: '未配置数据来源' },
    })),
  },
  guards: {
    succeeded: (_, params: { result: FetchResult }) => params.result.ok,
    isUnauthorized: (_, params: { result: FetchResult }) =>
      !params.result.ok &&
      params.result.error.status === 401 &&
      params.result.error.code !== 'WECHAT_AUTH_REQUIRED',
  },
}).createMachine({
  id: 'request',
  context: ({ input }) => ({ params: input.params, data: undefined, error: null, attempts: 0 }),
  initial: 'idle',
  states: {
    idle: {
      on: {
        'request.fetch': {
          target: 'loading',
          actions: assign(({ context, event }) => ({ params: event.params ?? context.params })),
        },
      },
    },
    loading: {
      entry: assign(({ context }) => ({ attempts: context.attempts + 1 })),
      on: {
        'request.fetch': {
          description:
            'New params while a call is out (typing in a search box): that call is dropped and one with the new params starts, so the list always answers what the screen shows.',
          target: 'loading',
          reenter: true,
          actions: assign(({ context, event }) => ({ params: event.params ?? context.params })),
        },
      },
      invoke: {
        id: 'fetchData',
        src: 'fetchData',
        input: ({ context }) => ({ params: context.params }),
        onDone: [
          {
            guard: { type: 'succeeded', params: ({ event }) => ({ result: event.output }) },
            target: 'success',
            actions: assign(({ event }) => ({
              data: event.output.ok ? event.output.value : undefined,
              error: null,
            })),
          },
          {
            guard: { type: 'isUnauthorized', params: ({ event }) => ({ result: event.output }) },
            target: 'unauthorized',
            actions: assign(({ event }) => ({ error: event.output.ok ? null : event.output.error })),
          },
          {
            target: 'failure',
            actions: assign(({ event }) => ({ error: event.output.ok ? null : event.output.error })),
          },
        ],
        onError: { target: 'failure', actions: assign({ error: UNEXPECTED }) },
      },
    },
    success: {
      on: {
        'request.fetch': {
          target: 'loading',
          actions: assign(({ context, event }) => ({ params: event.params ?? context.params })),
        },
      },
    },
    failure: {
      on: {
        'request.retry': { target: 'loading' },
        'request.fetch': {
          target: 'loading',
          actions: assign(({ context, event }) => ({ params: event.params ?? context.params })),
        },
      },
    },
    unauthorized: {
      description:
        'A staff 401: the session is already logged out and the page is on its way to /admin-login.',
      on: {
        'request.retry': { target: 'loading' },
      },
    },
  },
});

export type RequestSnapshot = SnapshotFrom<typeof requestMachine>;
