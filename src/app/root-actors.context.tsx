/**
 * React wiring of the root actors: one provider, named hooks. Screens use `useSession()` (derived values and
 * `login`/`logout`), or `useSessionSelector(selector)` with the selectors of `machines/session.selectors`.
 */
import { useSelector } from '@xstate/react';
import { createContext, useContext, type ReactNode } from 'react';
import type { SessionSnapshot } from '../machines/session.machine';
import {
  selectAuthenticated,
  selectIsRestoring,
  selectLevel,
  selectMerchantId,
  selectName,
  selectRole,
  selectUserId,
} from '../machines/session.selectors';
import type { SessionUser } from '../machines/session.types';
import type { TabBarSnapshot } from '../machines/tab-bar.machine';
import type { RootActors } from './root-actors';

const RootActorsContext = createContext<RootActors | null>(null);

export function RootActorsProvider({ actors, children }: { actors: RootActors; children: ReactNode }) {
  return <RootActorsContext.Provider value={actors}>{children}</RootActorsContext.Provider>;
}

export function useRootActors(): RootActors {
  const actors = useContext(RootActorsContext);
  if (!actors) throw new Error('useRootActors() outside <RootActorsProvider>');
  return actors;
}

export function useSessionSelector<T>(selector: (s: SessionSnapshot) => T): T {
  return useSelector(useRootActors().session, selector);
}

export function useTabBarSelector<T>(selector: (s: TabBarSnapshot) => T): T {
  return useSelector(useRootActors().tabBar, selector);
}

/** The staff session as screens need it. */
export function useSession() {
  const { session } = useRootActors();
  return {
    restoring: useSelector(session, selectIsRestoring),
    authenticated: useSelector(session, selectAuthenticated),
    role: useSelector(session, selectRole),
    name: useSelector(session, selectName),
    id: useSelector(session, selectUserId),
    level: useSelector(session, selectLevel),
    merchantId: useSelector(session, selectMerchantId),
    login: (token: string, user: SessionUser) => session.send({ type: 'session.login', token, user }),
    logout: () => session.send({ type: 'session.logout' }),
  };
}
