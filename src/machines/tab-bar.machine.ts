import { assign, setup, type SnapshotFrom } from 'xstate';
import { PARTNER_LEVEL } from '../domain/levels';
import { effectivePath, isTabBarHidden } from '../domain/routes';
import type { Tab, TabBarContext, TabBarEvent } from './tab-bar.types';

export const HOME_TAB: Tab = { path: '/dashboard', label: '首页', icon: 'home' };
export const WALLET_TAB: Tab = { path: '/wallet', label: '钱包', icon: 'wallet' };
export const ME_TAB: Tab = { path: '/profile', label: '我的', icon: 'me' };
export const ALL_TAB_PATHS: readonly string[] = [HOME_TAB.path, WALLET_TAB.path, ME_TAB.path];

/** docs/decisions.md D1: level 3 sees 钱包 and 我的; every other level 首页 and 我的. */
export function tabsForLevel(level: number | null): readonly Tab[] {
  return level === PARTNER_LEVEL ? [WALLET_TAB, ME_TAB] : [HOME_TAB, ME_TAB];
}

/** docs/decisions.md D2: a tab path (of the three) that is not among this level's tabs. */
export function isForeignTabPath(pathname: string, level: number | null): boolean {
  return ALL_TAB_PATHS.includes(pathname) && !tabsForLevel(level).some((t) => t.path === pathname);
}

/** Where the path lands after the on-load redirect rule, or null when it stays. */
export function onLoadRedirect(pathname: string, level: number | null): string | null {
  if (isTabBarHidden(pathname)) return null;
  return isForeignTabPath(pathname, level) ? (tabsForLevel(level)[0]?.path ?? null) : null;
}

const decide = [{ guard: 'isHiddenPath', target: '#tabBar.hidden' }, { target: '#tabBar.visible' }] as const;

/**
 * Owns the bottom tab bar: which tabs the level sees, whether the bar shows on the current path, the on-load
 * redirect (a user whose page lands on a tab path that is not theirs — `/` lands on `/dashboard` — goes to their
 * first tab; deeper pages keep their URL) and tab choice. Navigation is the edge-provided `navigateTo` action.
 */
export const tabBarMachine = setup({
  types: {
    context: {} as TabBarContext,
    events: {} as TabBarEvent,
  },
  actions: {
    /** Client-side navigation (edge-provided: wouter's navigate). */
    navigateTo: (_, _params: { path: string }) => {},
    setPath: assign((_, params: { pathname: string }) => ({ pathname: params.pathname })),
    setLevel: assign((_, params: { level: number | null }) => ({ level: params.level })),
  },
  guards: {
    isHiddenPath: ({ context }) => isTabBarHidden(context.pathname),
    isForeignTab: ({ context }) => onLoadRedirect(context.pathname, context.level) !== null,
    isOwnTab: ({ context }, params: { path: string }) =>
      tabsForLevel(context.level).some((t) => t.path === params.path),
  },
}).createMachine({
  id: 'tabBar',
  context: { level: null, pathname: '/' },
  initial: 'loading',
  states: {
    loading: {
      description:
        'Waits for the first path and the restored level, then applies the on-load redirect once, to the path the route table leads to (/ and a pay link without its query: /dashboard).',
      on: {
        'tab.load': {
          target: 'checkingOnLoad',
          actions: [
            // The session may be restored before the router has redirected `/`: judge where the page will land.
            {
              type: 'setPath',
              params: ({ event }) => ({ pathname: effectivePath(event.pathname, event.search) }),
            },
            { type: 'setLevel', params: ({ event }) => ({ level: event.level }) },
          ],
        },
      },
    },
    checkingOnLoad: {
      always: [
        {
          guard: 'isForeignTab',
          target: 'visible',
          actions: [
            {
              type: 'navigateTo',
              params: ({ context }) => ({ path: tabsForLevel(context.level)[0]?.path ?? '/dashboard' }),
            },
            assign(({ context }) => ({ pathname: tabsForLevel(context.level)[0]?.path ?? '/dashboard' })),
          ],
        },
        ...decide,
      ],
    },
    hidden: {
      description: 'On /user/*, /admin-login, /wechat-login and /login.',
      on: {
        'route.changed': {
          target: 'routing',
          actions: { type: 'setPath', params: ({ event }) => ({ pathname: event.pathname }) },
        },
        'session.changed': {
          actions: { type: 'setLevel', params: ({ event }) => ({ level: event.level }) },
        },
      },
    },
    visible: {
      on: {
        'route.changed': {
          target: 'routing',
          actions: { type: 'setPath', params: ({ event }) => ({ pathname: event.pathname }) },
        },
        'session.changed': {
          actions: { type: 'setLevel', params: ({ event }) => ({ level: event.level }) },
        },
        'tab.select': {
          guard: { type: 'isOwnTab', params: ({ event }) => ({ path: event.path }) },
          actions: { type: 'navigateTo', params: ({ event }) => ({ path: event.path }) },
        },
      },
    },
    routing: {
      description: 'After a route change: shown or hidden, never redirected (a reload keeps deeper pages).',
      always: [...decide],
    },
  },
});

export type TabBarSnapshot = SnapshotFrom<typeof tabBarMachine>;
