/** One page of the app, as the route table (`route-table.ts`) lists it. */
import type { Feature } from './levels';

export interface RouteDef {
  /** Stable id; the screen registry and tests refer to it. */
  id: string;
  /** wouter pattern. */
  path: string;
  /** Chinese page title shown in the header and the document title. */
  title: string;
  /** Staff feature required (from the permission matrix); absent = any signed-in staff account. */
  feature?: Feature;
  /** Where the back arrow goes; absent on top-level pages. */
  back?: string;
  /** Section shown on the dashboard tile grid. */
  group?: 'admin' | 'subUsers' | 'merchant' | 'reports' | 'daily' | 'employee' | 'main';
  /** A short icon glyph used by tiles (an emoji keeps the pay path free of icon fonts). */
  icon?: string;
  /** Which screen module renders it (several paths may share one, e.g. the cash report). */
  screen: string;
  /** Standalone pages are outside the main layout (no header/tab bar). */
  standalone?: boolean;
}
