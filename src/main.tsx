import './styles/main.css';
import { startTransition } from 'react';
import { createRoot } from 'react-dom/client';
import { navigate } from 'wouter/use-browser-location';
import type { ActorOptions, AnyActorLogic } from 'xstate';
import { App } from './app/app';
import { createRootActors } from './app/root-actors';
import { browserStores } from './http/session-storage';

async function boot() {
  let inspect: ActorOptions<AnyActorLogic>['inspect'];
  if (import.meta.env.DEV && location.search.includes('inspect')) {
    inspect = (await import('./app/inspect')).startInspector();
  }
  const actors = createRootActors({
    stores: browserStores(),
    navigate: (path, opts) => navigate(path, { replace: opts?.replace ?? false }),
    currentPath: () => location.pathname + location.search,
    inspect,
  });
  const root = document.getElementById('root');
  if (!root) return;
  const reactRoot = createRoot(root);
  // A transition: React renders the first screen in slices and yields between them, so the page (already painted
  // from its HTML on /user/pay) answers input meanwhile instead of one long task (docs/performance.md).
  startTransition(() => reactRoot.render(<App actors={actors} />));
}

void boot();
