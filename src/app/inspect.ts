/**
 * Developer flow view: `?inspect` in dev builds connects the root actors to the Stately inspector. Only ever
 * reached through a dynamic import behind `import.meta.env.DEV`, so production bundles contain none of it.
 */
import { createBrowserInspector } from '@statelyai/inspect';
import type { ActorOptions, AnyActorLogic } from 'xstate';

const MASK = '***';

/** Replaces every `token` value (and bearer strings) in an event or context before it leaves the page. */
export function maskTokens<T>(value: T): T {
  if (Array.isArray(value)) return value.map(maskTokens) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = /token|authorization/i.test(k) && v != null ? MASK : maskTokens(v);
    }
    return out as T;
  }
  if (typeof value === 'string' && /^Bearer\s/i.test(value)) return MASK as T;
  return value;
}

export function startInspector(): ActorOptions<AnyActorLogic>['inspect'] {
  const inspector = createBrowserInspector({
    sanitizeEvent: (event) => maskTokens(event),
    sanitizeContext: (context) => maskTokens(context),
  });
  return inspector.inspect;
}
