import type { SessionSnapshot } from '../../src/machines/session.machine';
import type { RestoredSession, SessionEvent, SessionUser } from '../../src/machines/session.types';

export const MERCHANT: SessionUser = { id: 2, name: '张老板', role: 'merchant', level: 2, merchant_id: 1 };
export const PARTNER: SessionUser = { id: 3, name: '李合伙', role: 'partner', level: 3, merchant_id: 1 };

/** Every user event of the session machine, with the payloads the model tries (fails to compile on a new event). */
export const SESSION_EVENTS = {
  'session.login': [{ type: 'session.login', token: 'tok-merchant', user: MERCHANT }],
  'session.logout': [{ type: 'session.logout' }],
  'http.unauthorized': [{ type: 'http.unauthorized' }],
} satisfies { [T in SessionEvent['type']]: Extract<SessionEvent, { type: T }>[] };

/** What start-up may find in storage: a user, a token without a readable user, nothing; or a failing read. */
export const RESTORE_OUTCOMES: RestoredSession[] = [
  { token: 'tok-stored', user: PARTNER },
  { token: 'tok-stored', user: null },
  { token: null, user: null },
];

export type ModelEvent =
  | SessionEvent
  | { type: 'xstate.done.actor.restoreSession'; output: RestoredSession }
  | { type: 'xstate.error.actor.restoreSession'; error: unknown };

export function sessionEventsFor(state: SessionSnapshot): ModelEvent[] {
  const user = Object.values(SESSION_EVENTS).flat() as ModelEvent[];
  if (!state.matches('restoring')) return user;
  return [
    ...user,
    ...RESTORE_OUTCOMES.map((output) => ({ type: 'xstate.done.actor.restoreSession' as const, output })),
    { type: 'xstate.error.actor.restoreSession', error: new Error('storage blocked') },
  ];
}

export function serializeSession(s: SessionSnapshot): string {
  return JSON.stringify({ value: s.value, user: s.context.user?.name ?? null, token: s.context.token });
}
