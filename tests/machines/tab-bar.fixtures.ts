import type { TabBarSnapshot } from '../../src/machines/tab-bar.machine';
import type { TabBarEvent } from '../../src/machines/tab-bar.types';

/** Paths that matter to the bar: its three tabs, a deeper page, and pages where it is hidden. */
export const PATHS = [
  '/dashboard',
  '/wallet',
  '/profile',
  '/merchant/venues',
  '/user/pay',
  '/admin-login',
] as const;
/** A merchant (2), a partner (3), and no user yet. */
export const LEVELS = [2, 3, null] as const;

/** The query a path is opened with: the pay page keeps its query (without it the router sends it to `/`). */
export const searchOf = (pathname: string) => (pathname === '/user/pay' ? 'device_id=1&venue_id=1' : '');
/**
 * Pages first opened on: the paths above, plus the two the router redirects before any screen: `/` (to
 * `/dashboard`) and a pay link without its query (to `/`, then `/dashboard`).
 */
export const LOAD_URLS: readonly { pathname: string; search: string }[] = [
  ...PATHS.map((pathname) => ({ pathname, search: searchOf(pathname) })),
  { pathname: '/', search: '' },
  { pathname: '/user/pay', search: '' },
];

/** Every event of the tab-bar machine with the payloads the model tries (fails to compile on a new event). */
export const TAB_EVENTS = {
  'tab.load': LOAD_URLS.flatMap(({ pathname, search }) =>
    LEVELS.map((level) => ({ type: 'tab.load' as const, pathname, search, level })),
  ),
  'route.changed': PATHS.map((pathname) => ({ type: 'route.changed' as const, pathname })),
  'session.changed': [
    { type: 'session.changed', level: 2 },
    { type: 'session.changed', level: 3 },
  ],
  'tab.select': [
    { type: 'tab.select', path: '/dashboard' },
    { type: 'tab.select', path: '/wallet' },
    { type: 'tab.select', path: '/profile' },
  ],
} satisfies { [T in TabBarEvent['type']]: Extract<TabBarEvent, { type: T }>[] };

export function tabEventsFor(state: TabBarSnapshot): TabBarEvent[] {
  // tab.load happens once, before anything else; afterwards the router and the session speak.
  if (state.matches('loading')) return TAB_EVENTS['tab.load'];
  return [...TAB_EVENTS['route.changed'], ...TAB_EVENTS['session.changed'], ...TAB_EVENTS['tab.select']];
}

export function serializeTabBar(s: TabBarSnapshot): string {
  return JSON.stringify({ value: s.value, level: s.context.level, path: s.context.pathname });
}
