import type { RequestSnapshot } from '../../src/machines/request.machine';
import type { FetchResult, RequestEvent } from '../../src/machines/request.types';

/** Every user event of the request machine (fails to compile on a new event). */
export const REQUEST_EVENTS = {
  'request.fetch': [{ type: 'request.fetch' }],
  'request.retry': [{ type: 'request.retry' }],
} satisfies { [T in RequestEvent['type']]: Extract<RequestEvent, { type: T }>[] };

/** The answers a call may come back with: data, a server error, a staff 401, an end-user 401, no answer. */
export const OUTCOMES: FetchResult[] = [
  { ok: true, value: { items: [1, 2] } },
  { ok: false, error: { status: 500, code: 'INTERNAL', message: '服务器错误' } },
  { ok: false, error: { status: 401, code: 'UNAUTHORIZED', message: '请先登录' } },
  { ok: false, error: { status: 401, code: 'WECHAT_AUTH_REQUIRED', message: '需要微信授权' } },
  { ok: false, error: { status: 0, code: 'NETWORK_ERROR', message: 'Network Error' } },
];

export type RequestModelEvent =
  | RequestEvent
  | { type: 'xstate.done.actor.fetchData'; output: FetchResult }
  | { type: 'xstate.error.actor.fetchData'; error: unknown };

export function requestEventsFor(state: RequestSnapshot): RequestModelEvent[] {
  const user = Object.values(REQUEST_EVENTS).flat() as RequestModelEvent[];
  if (!state.matches('loading')) return user;
  return [
    ...user,
    ...OUTCOMES.map((output) => ({ type: 'xstate.done.actor.fetchData' as const, output })),
    { type: 'xstate.error.actor.fetchData', error: new TypeError('bug') },
  ];
}

export function serializeRequest(s: RequestSnapshot): string {
  return JSON.stringify({
    value: s.value,
    error: s.context.error?.code ?? null,
    data: s.context.data !== undefined,
  });
}
