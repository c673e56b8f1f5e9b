import { tabsForLevel } from './tab-bar.machine';
import type { TabBarSnapshot } from './tab-bar.machine';
import type { Tab } from './tab-bar.types';

/** Pure selectors over the tab-bar snapshot. */
export const selectTabBarVisible = (s: TabBarSnapshot): boolean => s.matches('visible');
export const selectTabs = (s: TabBarSnapshot): readonly Tab[] => tabsForLevel(s.context.level);
/** The tab of the current path, or null on deeper pages (bar shown, no tab active). */
export const selectActiveTab = (s: TabBarSnapshot): Tab['path'] | null =>
  selectTabs(s).find((t) => t.path === s.context.pathname)?.path ?? null;
