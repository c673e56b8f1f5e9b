/**
 * Answers requested before the bundle loaded: on `/user/pay`, index.html's inline script starts the page's four
 * GETs at once (docs/performance.md) and leaves their pending responses in `window.__scangoPreload`, keyed by URL.
 * The one HTTP client's fetch takes a matching GET from there once, so the app runs its usual code (headers, the
 * error catalogue) on an answer that is already on its way, and never asks twice.
 */

/** The global the inline script fills; its name is shared with the build plugin that writes the script. */
export const PRELOAD_GLOBAL = '__scangoPreload';

type Preloaded = Record<string, Promise<Response> | undefined>;

function registry(): Preloaded | undefined {
  return (globalThis as unknown as Record<string, Preloaded | undefined>)[PRELOAD_GLOBAL];
}

/** The pending answer for a GET of `url`, once; undefined when none was started (or it was taken already). */
export function takePreloaded(url: string): Promise<Response> | undefined {
  const all = registry();
  const found = all?.[url];
  if (all && found) delete all[url];
  return found;
}

function abortable(p: Promise<Response>, signal: AbortSignal | null | undefined): Promise<Response> {
  if (!signal) return p;
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise((resolve, reject) => {
    signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
    p.then(resolve, reject);
  });
}

/** Wraps a fetch so a GET with a preloaded answer uses it (still bound by the request's timeout signal). */
export function withPreload(fetchImpl: typeof globalThis.fetch): typeof globalThis.fetch {
  return (input, init) => {
    const method = (init?.method ?? 'GET').toUpperCase();
    if (method === 'GET' && typeof input === 'string') {
      const found = takePreloaded(input);
      if (found) return abortable(found, init?.signal);
    }
    return fetchImpl(input, init);
  };
}
