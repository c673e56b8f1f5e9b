/**
 * The edge: creates the root actors (session, tab bar), supplies their effects (storage, navigation) and wires
 * the HTTP client to the session. Called once by `main.tsx`, and by tests with happy-dom's real storages.
 */
import { createActor, fromPromise, type ActorOptions, type ActorRefFrom, type AnyActorLogic } from 'xstate';
import { configureHttp, redirectToAdminLogin } from '../http/client';
import { clearSession, readToken, readUser, writeSession, type SessionStores } from '../http/session-storage';
import { sessionMachine } from '../machines/session.machine';
import { selectIsRestoring, selectLevel } from '../machines/session.selectors';
import type { SessionUser } from '../machines/session.types';
import { tabBarMachine } from '../machines/tab-bar.machine';
import { bridgeSessionSignals } from './session.signals';

export interface RootActorsOptions {
  stores: SessionStores;
  navigate: (path: string, opts?: { replace?: boolean }) => void;
  /** Current path + query. */
  currentPath: () => string;
  /** Passed to every root actor (the Stately inspector in dev builds). */
  inspect?: ActorOptions<AnyActorLogic>['inspect'];
  fetch?: typeof globalThis.fetch | undefined;
  baseURL?: string | undefined;
}

export interface RootActors {
  session: ActorRefFrom<typeof sessionMachine>;
  tabBar: ActorRefFrom<typeof tabBarMachine>;
  stores: SessionStores;
  stop: () => void;
}

function asSessionUser(raw: Record<string, unknown>): SessionUser {
  return {
    id: typeof raw.id === 'number' ? raw.id : undefined,
    name: typeof raw.name === 'string' ? raw.name : undefined,
    role: typeof raw.role === 'string' ? raw.role : undefined,
    level: typeof raw.level === 'number' ? raw.level : undefined,
    merchant_id: typeof raw.merchant_id === 'number' ? raw.merchant_id : null,
  };
}

export function createRootActors(opts: RootActorsOptions): RootActors {
  const { stores, navigate, currentPath } = opts;
  const session = createActor(
    sessionMachine.provide({
      actors: {
        restoreSession: fromPromise(async () => {
          const token = readToken(stores);
          const { user } = readUser(stores);
          return { token, user: user ? asSessionUser(user) : null };
        }),
      },
      actions: {
        persistSession: (_, params) => {
          writeSession(stores, params.token, params.user as Record<string, unknown>);
        },
        clearStoredSession: () => clearSession(stores),
        redirectToLogin: () => redirectToAdminLogin(),
      },
    }),
    { systemId: 'session', inspect: opts.inspect },
  );
  const tabBar = createActor(
    tabBarMachine.provide({
      actions: { navigateTo: (_, params) => navigate(params.path, { replace: true }) },
    }),
    { systemId: 'tabBar', inspect: opts.inspect },
  );

  configureHttp({
    stores,
    navigate: (path) => navigate(path),
    currentPath,
    onUnauthorized: () => session.send({ type: 'http.unauthorized' }),
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
    ...(opts.baseURL ? { baseURL: opts.baseURL } : {}),
  });

  // The tab bar's on-load rule needs the restored level: start it once the session has left `restoring`,
  // then keep it told about level changes (login as another account).
  let loaded = false;
  let lastLevel: number | null = null;
  const sub = session.subscribe((snap) => {
    if (selectIsRestoring(snap)) return;
    const level = snap.context.user ? selectLevel(snap) : null;
    if (!loaded) {
      loaded = true;
      lastLevel = level;
      const [pathname = '/', search = ''] = currentPath().split('?', 2);
      tabBar.send({ type: 'tab.load', pathname, search, level });
    } else if (level !== lastLevel) {
      lastLevel = level;
      tabBar.send({ type: 'session.changed', level });
    }
  });

  tabBar.start();
  session.start();
  // The derived session values as signals, fed from this session actor (one bridge per root actor).
  const unbridge = bridgeSessionSignals(session);
  return {
    session,
    tabBar,
    stores,
    stop: () => {
      sub.unsubscribe();
      unbridge();
      session.stop();
      tabBar.stop();
    },
  };
}
