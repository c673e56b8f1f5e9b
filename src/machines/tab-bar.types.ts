/** Types of the tab-bar machine. */

export interface Tab {
  path: '/dashboard' | '/wallet' | '/profile';
  label: string;
  icon: 'home' | 'wallet' | 'me';
}

export interface TabBarContext {
  /** The signed-in user's level; null while unknown (defaults to the non-partner tabs). */
  level: number | null;
  pathname: string;
}

export type TabBarEvent =
  /** The first path (and query) the page was opened with, and the restored level. */
  | { type: 'tab.load'; pathname: string; search: string; level: number | null }
  | { type: 'route.changed'; pathname: string }
  | { type: 'session.changed'; level: number | null }
  | { type: 'tab.select'; path: string };
