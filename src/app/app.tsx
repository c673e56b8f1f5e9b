import { Router } from 'wouter';
import { AppRoutes } from './app-routes';
import { RootActorsProvider } from './root-actors.context';
import type { RootActors } from './root-actors';

/** The whole client: root actors in context, the router below. */
export function App({ actors }: { actors: RootActors }) {
  return (
    <RootActorsProvider actors={actors}>
      <Router>
        <AppRoutes />
      </Router>
    </RootActorsProvider>
  );
}
