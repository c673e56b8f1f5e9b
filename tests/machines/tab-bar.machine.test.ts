/**
 * The tab-bar machine, model-based: every (state, event) edge reachable with the fixtures is walked on a live
 * actor whose navigation is recorded; each step must land where the model says and navigate exactly as the spec
 * and docs/decisions.md D2 say. A coverage assertion fails on any edge left unwalked.
 */
import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { getAdjacencyMap } from 'xstate/graph';
import { effectivePath, isTabBarHidden } from '../../src/domain/routes';
import {
  onLoadRedirect,
  tabBarMachine,
  tabsForLevel,
  type TabBarSnapshot,
} from '../../src/machines/tab-bar.machine';
import { selectActiveTab, selectTabBarVisible, selectTabs } from '../../src/machines/tab-bar.selectors';
import type { TabBarEvent } from '../../src/machines/tab-bar.types';
import { edgePaths, uncoveredEdges, walkedEdge } from './coverage';
import { serializeTabBar, tabEventsFor } from './tab-bar.fixtures';

const ser = (s: TabBarSnapshot) => serializeTabBar(s);
const adj = getAdjacencyMap(tabBarMachine, { events: tabEventsFor, serializeState: ser });
const start = Object.values(adj)[0]!.state as TabBarSnapshot;

function startTabBar() {
  const navigations: string[] = [];
  const actor = createActor(
    tabBarMachine.provide({ actions: { navigateTo: (_, p) => navigations.push(p.path) } }),
  );
  actor.start();
  return { actor, navigations };
}

/** What the spec says a step must navigate to. */
function expectedNavigation(before: TabBarSnapshot, event: TabBarEvent): string[] {
  if (event.type === 'tab.load') {
    // The on-load rule looks at where the page lands after the route table's redirects (`/` -> `/dashboard`).
    const to = onLoadRedirect(effectivePath(event.pathname, event.search), event.level);
    return to ? [to] : [];
  }
  if (event.type === 'tab.select' && before.matches('visible')) {
    return tabsForLevel(before.context.level).some((t) => t.path === event.path) ? [event.path] : [];
  }
  return [];
}

describe('tab-bar machine (model-based)', () => {
  it('walks every edge on a live actor, navigating only as the rules say, and covers them all', () => {
    const walked = new Set<string>();
    for (const path of edgePaths(adj, start, ser)) {
      if (path.edge && walked.has(path.edge)) continue;
      const live = startTabBar();
      for (const step of path.steps) {
        const before = live.actor.getSnapshot();
        const navBefore = live.navigations.length;
        live.actor.send(step.event);
        const after = live.actor.getSnapshot();
        expect(ser(after), `${path.edge}`).toBe(ser(step.state as TabBarSnapshot));
        expect(live.navigations.slice(navBefore), `${path.edge}`).toEqual(
          expectedNavigation(before, step.event),
        );
        walked.add(walkedEdge(before, step.event, after, ser));
      }
      live.actor.stop();
    }
    expect(uncoveredEdges(adj, walked, ser)).toEqual([]);
  });

  it('in every reachable state: hidden exactly on the spec paths, tabs by level, active tab only on a tab path', () => {
    for (const node of Object.values(adj)) {
      const s = node.state as TabBarSnapshot;
      if (s.matches('loading')) continue;
      expect(selectTabBarVisible(s)).toBe(!isTabBarHidden(s.context.pathname));
      const labels = selectTabs(s).map((t) => t.label);
      expect(labels).toEqual(s.context.level === 3 ? ['钱包', '我的'] : ['首页', '我的']);
      const active = selectActiveTab(s);
      expect(active === null || selectTabs(s).some((t) => t.path === active)).toBe(true);
      if (s.context.pathname === '/merchant/venues') expect(active).toBeNull();
    }
  });

  it.each([
    // [opened on, query, level, navigates to, then on]: docs/decisions.md D1 "on load, a level 3 user goes to wallet".
    ['/', '', 3, ['/wallet'], '/wallet'],
    ['/', '', 2, [], '/dashboard'],
    ['/', '', null, [], '/dashboard'],
    ['/user/pay', '', 3, ['/wallet'], '/wallet'],
    ['/user/pay', 'device_id=1', 2, [], '/dashboard'],
    ['/user/pay', 'device_id=1&venue_id=1', 3, [], '/user/pay'],
    ['/dashboard', '', 3, ['/wallet'], '/wallet'],
    ['/wallet', '', 2, ['/dashboard'], '/dashboard'],
    ['/merchant/venues', '', 3, [], '/merchant/venues'],
  ] as const)(
    'on load at %s?%s, level %s navigates to %j and is on %s',
    (pathname, search, level, to, on) => {
      const live = startTabBar();
      live.actor.send({ type: 'tab.load', pathname, search, level });
      expect(live.navigations).toEqual(to);
      expect(live.actor.getSnapshot().context.pathname).toBe(on);
      live.actor.stop();
    },
  );

  it('the coverage assertion notices an unwalked transition', () => {
    const all = new Set<string>();
    const some = edgePaths(adj, start, ser)[0]!;
    let prev = start;
    for (const step of some.steps) {
      all.add(walkedEdge(prev, step.event, step.state as TabBarSnapshot, ser));
      prev = step.state as TabBarSnapshot;
    }
    expect(uncoveredEdges(adj, all, ser).length).toBeGreaterThan(0);
  });
});
