/**
 * Lazily loaded screens, one chunk per module, keyed by `RouteDef.screen` (e.g. `merchant/venues` is
 * `src/screens/merchant/venues.tsx`). Any screen file present is picked up; a route whose file is missing shows
 * the not-found screen instead of breaking the build. Only routed screens sit directly in an area folder: a
 * screen's pieces live in `<area>/parts/`, shared pieces in `shared/`, because every key of this glob puts a
 * loader and its preload list into the entry chunk that `/user/pay` loads (docs/client.md).
 */
import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import type { RouteDef } from '../domain/routes';

/** What every screen receives. */
export interface ScreenProps {
  route: RouteDef;
  params: Record<string, string>;
}

type ScreenModule = { default: ComponentType<ScreenProps> };

const modules = import.meta.glob<ScreenModule>(['../screens/*/*.tsx', '!../screens/shared/*']);
const cache = new Map<string, LazyExoticComponent<ComponentType<ScreenProps>>>();

export function screenKeys(): string[] {
  return Object.keys(modules).map((k) => k.replace('../screens/', '').replace(/\.tsx$/, ''));
}

export function hasScreen(screen: string): boolean {
  return `../screens/${screen}.tsx` in modules;
}

export function lazyScreen(screen: string): LazyExoticComponent<ComponentType<ScreenProps>> | null {
  const load = modules[`../screens/${screen}.tsx`];
  if (!load) return null;
  let component = cache.get(screen);
  if (!component) {
    component = lazy(load);
    cache.set(screen, component);
  }
  return component;
}
