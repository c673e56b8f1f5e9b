/** The rules over the route table (`route-table.ts`): aliases, group labels, guard exemptions, matching, redirects. */
import { ROUTES } from './route-table';
import type { RouteDef } from './route.types';

export { ROUTES } from './route-table';
export type { RouteDef } from './route.types';

/** `/login` is an alias of `/admin-login` (docs/decisions.md D2). */
export const ROUTE_ALIASES: Readonly<Record<string, string>> = { '/login': '/admin-login' };

export const GROUP_LABELS: Record<NonNullable<RouteDef['group']>, string> = {
  main: '常用',
  admin: '平台管理',
  subUsers: '子账号与分润',
  merchant: '商户运营',
  reports: '报表',
  daily: '日报',
  employee: '员工工作台',
};

/** docs/decisions.md D1: pages reachable without a staff token. */
const GUARD_EXEMPT_EXACT = ['/admin-login', '/wechat-login', '/login'];
const GUARD_EXEMPT_PREFIXES = [
  '/user/pay',
  '/user/using',
  '/user/profile',
  '/user/recharge-history',
  '/user/consumption-history',
  '/user/feedback',
];

/** docs/decisions.md D1: API paths exempt from the guard (the public device pages' calls and end-user calls). */
const GUARD_EXEMPT_API_PREFIXES = ['/api/devices', '/api/venues', '/api/venue-service-prices', '/api/query'];

export function isGuardExempt(pathname: string): boolean {
  return (
    GUARD_EXEMPT_EXACT.includes(pathname) ||
    GUARD_EXEMPT_PREFIXES.some((p) => pathname.startsWith(p)) ||
    GUARD_EXEMPT_API_PREFIXES.some((p) => pathname.startsWith(p)) ||
    (pathname.startsWith('/api/') && pathname.includes('/user/'))
  );
}

/** docs/decisions.md D1: the tab bar is hidden on these. */
export function isTabBarHidden(pathname: string): boolean {
  return ['/user/', '/admin-login', '/wechat-login', '/login'].some((p) => pathname.startsWith(p));
}

/** docs/decisions.md D1: `/user/pay` needs both `device_id` and `venue_id`, else the visitor goes to `/`. */
export function payQueryIsValid(search: string): boolean {
  const q = new URLSearchParams(search);
  return Boolean(q.get('device_id')) && Boolean(q.get('venue_id'));
}

/** Matches a concrete pathname to its route (params like `:id` match one segment; literal segments win). */
export function matchRoute(
  pathname: string,
): { route: RouteDef; params: Record<string, string> } | undefined {
  const target = ROUTE_ALIASES[pathname] ?? pathname;
  const parts = target.split('/').filter(Boolean);
  let best: { route: RouteDef; params: Record<string, string>; score: number } | undefined;
  for (const route of ROUTES) {
    const segs = route.path.split('/').filter(Boolean);
    if (segs.length !== parts.length) continue;
    const params: Record<string, string> = {};
    let score = 0;
    let ok = true;
    segs.forEach((s, i) => {
      const part = parts[i] ?? '';
      if (s.startsWith(':')) params[s.slice(1)] = decodeURIComponent(part);
      else if (s === part) score += 1;
      else ok = false;
    });
    if (ok && (!best || score > best.score)) best = { route, params, score };
  }
  return best && { route: best.route, params: best.params };
}

/**
 * The route table's own redirects, one hop at a time (docs/decisions.md D1, D2): `/login` is
 * `/admin-login` (query kept), `/` goes to `/dashboard`, `/user/pay` without `device_id` and `venue_id` goes to `/`.
 * Null when the path stays. The guard is not one of them: it depends on the stored token.
 */
export function routeRedirect(pathname: string, search: string): string | null {
  const alias = ROUTE_ALIASES[pathname];
  const query = search.replace(/^\?/, '');
  if (alias) return alias + (query ? `?${query}` : '');
  if (pathname === '/') return '/dashboard';
  if (pathname === '/user/pay' && !payQueryIsValid(search)) return '/';
  return null;
}

/**
 * The pathname a page lands on once the route table's redirects have run (the guard aside): `/` and a pay link
 * without its query land on `/dashboard`, `/login` on `/admin-login`. The tab bar's on-load rule uses it, because
 * at start-up the session can be restored before the router has redirected.
 */
export function effectivePath(pathname: string, search = ''): string {
  let path = pathname;
  let query = search;
  // Each hop moves towards a route that stays; the bound only guards against a future cycle in the table.
  for (let hop = 0; hop < 8; hop += 1) {
    const next = routeRedirect(path, query);
    if (next === null) break;
    const at = next.indexOf('?');
    path = at === -1 ? next : next.slice(0, at);
    query = at === -1 ? '' : next.slice(at + 1);
  }
  return path;
}
