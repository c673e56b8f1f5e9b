/**
 * A happy-dom document for component tests that also run the real server in process. Vitest's happy-dom
 * environment swaps in happy-dom's fetch, Request, Response and Headers, which (as a browser must) hide
 * `Set-Cookie` — and the server's WeChat sign-in needs it. This module installs only the DOM globals and keeps
 * Node's fetch family. Import it first, in a file marked `// @vitest-environment node`.
 */
import { Window } from 'happy-dom';
// Loaded before the DOM globals exist: mqtt.js decides once, at load, whether it runs in a browser (then it would
// not speak TCP), and the server in process speaks MQTT over TCP to its embedded broker.
import 'mqtt';

const win = new Window({ url: 'http://localhost:3000' });
const g = globalThis as Record<string, unknown>;
const FORCE = [
  'Event',
  'EventTarget',
  'CustomEvent',
  'window',
  'document',
  'navigator',
  'location',
  'history',
  'sessionStorage',
  'localStorage',
  'self',
];
for (const key of Object.getOwnPropertyNames(win)) {
  if (key in g && !FORCE.includes(key)) continue;
  try {
    const value = (win as unknown as Record<string, unknown>)[key];
    g[key] = typeof value === 'function' && !/^[A-Z]/.test(key) ? value.bind(win) : value;
  } catch {
    // A getter that needs a browsing context; not used by the tests.
  }
}
for (const key of FORCE)
  g[key] = key === 'window' || key === 'self' ? win : (win as unknown as Record<string, unknown>)[key];
g.IS_REACT_ACT_ENVIRONMENT = true;

export const domWindow = win;
