import { Suspense, lazy, useEffect, type ReactNode } from 'react';
import { Redirect, useLocation, useSearch } from 'wouter';
import { isGuardExempt, matchRoute, routeRedirect } from '../domain/routes';
import { readToken } from '../http/session-storage';
import { Loading } from '../ui/states';
import { NotFound } from './not-found';
import { useRootActors } from './root-actors.context';
import { lazyScreen } from './screen-registry';

const MainLayout = lazy(() => import('./main-layout'));

/** Where a path goes before any screen renders (docs/decisions.md D1), or null to render it. */
export function redirectFor(pathname: string, search: string, hasToken: boolean): string | null {
  const next = routeRedirect(pathname, search);
  if (next !== null) return next;
  if (!isGuardExempt(pathname) && !hasToken) return '/admin-login';
  return null;
}

function Screen({ pathname }: { pathname: string }): ReactNode {
  const match = matchRoute(pathname);
  const Component = match ? lazyScreen(match.route.screen) : null;
  if (!match || !Component) {
    return (
      <Suspense fallback={<Loading />}>
        <MainLayout>
          <NotFound />
        </MainLayout>
      </Suspense>
    );
  }
  const screen = <Component route={match.route} params={match.params} />;
  if (match.route.standalone) return <Suspense fallback={<Loading />}>{screen}</Suspense>;
  return (
    <Suspense fallback={<Loading />}>
      <MainLayout>
        <Suspense fallback={<Loading />}>{screen}</Suspense>
      </MainLayout>
    </Suspense>
  );
}

/** The route table rendered: aliases, `/` -> `/dashboard`, the pay query rule, the guard, lazy screens. */
export function AppRoutes() {
  const [pathname] = useLocation();
  const search = useSearch();
  const { tabBar, stores } = useRootActors();

  useEffect(() => {
    tabBar.send({ type: 'route.changed', pathname });
  }, [tabBar, pathname]);

  const match = matchRoute(pathname);
  useEffect(() => {
    document.title = match?.route.title ? `${match.route.title} - 扫码即用` : '页面不存在 - 扫码即用';
  }, [match?.route.title]);

  const to = redirectFor(pathname, search, readToken(stores) !== null);
  // Keyed by target: wouter fires a <Redirect> once per mount, and redirects can chain (/user/pay -> / -> ...).
  if (to) return <Redirect key={to} to={to} replace />;
  return <Screen pathname={pathname} />;
}
