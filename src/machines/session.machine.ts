import { assign, fromPromise, setup, type SnapshotFrom } from 'xstate';
import type { RestoredSession, SessionContext, SessionEvent, SessionUser } from './session.types';

/**
 * Owns the staff session (docs/decisions.md D1, D2): start-up restore, login, logout and the 401
 * logout. Storage and navigation are named effects (`restoreSession`, `persistSession`, `clearStoredSession`,
 * `redirectToLogin`) that the edge supplies with `sessionMachine.provide(...)`; the defaults do nothing, so the
 * machine itself touches neither the DOM nor storage.
 */
export const sessionMachine = setup({
  types: {
    context: {} as SessionContext,
    events: {} as SessionEvent,
  },
  actors: {
    /** Reads token and user from local storage, then session storage (edge-provided). */
    restoreSession: fromPromise<RestoredSession>(async () => ({ token: null, user: null })),
  },
  actions: {
    /** Writes token and user to local storage, or session storage when that throws (edge-provided). */
    persistSession: (_, _params: { token: string; user: SessionUser }) => {},
    /** Removes token and user from both storages (edge-provided). */
    clearStoredSession: () => {},
    /** Goes to /admin-login unless already on /admin-login or /wechat-login (edge-provided). */
    redirectToLogin: () => {},
    setLoggedIn: assign((_, params: { token: string; user: SessionUser }) => ({
      token: params.token,
      user: params.user,
    })),
    setLoggedOut: assign({ token: null, user: null }),
  },
  guards: {
    hasStoredUser: (_, params: { output: RestoredSession }) => params.output.user !== null,
  },
}).createMachine({
  id: 'session',
  context: { user: null, token: null },
  initial: 'restoring',
  on: {
    'http.unauthorized': {
      target: '.loggedOut',
      actions: ['setLoggedOut', 'clearStoredSession', 'redirectToLogin'],
    },
  },
  states: {
    restoring: {
      description:
        'Start-up: the stored token becomes the bearer and the stored user, if readable, is restored.',
      invoke: {
        id: 'restoreSession',
        src: 'restoreSession',
        onDone: [
          {
            guard: { type: 'hasStoredUser', params: ({ event }) => ({ output: event.output }) },
            target: 'authenticated',
            actions: assign(({ event }) => ({ token: event.output.token, user: event.output.user })),
          },
          {
            target: 'anonymous',
            actions: assign(({ event }) => ({ token: event.output.token, user: null })),
          },
        ],
        onError: { target: 'anonymous' },
      },
    },
    anonymous: {
      description: 'No readable user (a token alone may still exist: the guard only asks for a token).',
      on: {
        'session.login': {
          target: 'authenticated',
          actions: [
            { type: 'setLoggedIn', params: ({ event }) => ({ token: event.token, user: event.user }) },
            { type: 'persistSession', params: ({ event }) => ({ token: event.token, user: event.user }) },
          ],
        },
      },
    },
    authenticated: {
      on: {
        'session.login': {
          target: 'authenticated',
          reenter: true,
          actions: [
            { type: 'setLoggedIn', params: ({ event }) => ({ token: event.token, user: event.user }) },
            { type: 'persistSession', params: ({ event }) => ({ token: event.token, user: event.user }) },
          ],
        },
        'session.logout': {
          target: 'loggedOut',
          actions: ['setLoggedOut', 'clearStoredSession', 'redirectToLogin'],
        },
      },
    },
    loggedOut: {
      description: 'Signed out by the user or by a 401; the page is /admin-login.',
      on: {
        'session.login': {
          target: 'authenticated',
          actions: [
            { type: 'setLoggedIn', params: ({ event }) => ({ token: event.token, user: event.user }) },
            { type: 'persistSession', params: ({ event }) => ({ token: event.token, user: event.user }) },
          ],
        },
      },
    },
  },
});

export type SessionSnapshot = SnapshotFrom<typeof sessionMachine>;
