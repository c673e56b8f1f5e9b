/**
 * `?inspect` in a dev build: Vite's dev server (in-process) in front of the real API; the page loads the
 * inspector module only when asked, the root actors report to it with tokens masked, and the app keeps working.
 * Requests leaving 127.0.0.1 (the inspector's stately.ai window) are refused: tests stay on loopback.
 */
import type { Browser } from 'playwright-core';
import { createServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, launchBrowser, newPhonePage, startApp, type RunningApp } from './harness';

let app: RunningApp;
let vite: ViteDevServer;
let devUrl: string;
let browser: Browser;

beforeAll(async () => {
  app = await startApp();
  vite = await createServer({
    root: ROOT,
    logLevel: 'warn',
    server: { host: '127.0.0.1', port: 0, strictPort: false, proxy: { '/backend': { target: app.url } } },
  });
  await vite.listen();
  const address = vite.httpServer?.address();
  if (!address || typeof address === 'string') throw new Error('vite did not listen');
  devUrl = `http://127.0.0.1:${address.port}`;
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await vite?.close();
  await app?.close();
});

describe('?inspect (dev builds)', () => {
  it('loads the inspector only with ?inspect, sends masked snapshots, and the app still works', async () => {
    const { page, context } = await newPhonePage(browser);
    await context.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => route.abort());
    const modules: string[] = [];
    page.on('request', (r) => modules.push(new URL(r.url()).pathname));

    await page.goto(`${devUrl}/admin-login`);
    await page.getByRole('heading', { name: '管理员登录' }).waitFor({ timeout: 60_000 });
    expect(modules.some((m) => m.endsWith('/src/app/inspect.ts'))).toBe(false);

    // Capture what the inspector would post to its window.
    await page.addInitScript(() => {
      const sent: unknown[] = [];
      (window as unknown as { __sent: unknown[] }).__sent = sent;
      const open = window.open.bind(window);
      window.open = (...args: Parameters<typeof window.open>) => {
        const w = open(...args);
        if (w) {
          const post = w.postMessage.bind(w);
          w.postMessage = (msg: unknown, ...rest: unknown[]) => {
            sent.push(msg);
            return (post as (...a: unknown[]) => void)(msg, ...rest);
          };
        }
        return w;
      };
    });
    await page.goto(`${devUrl}/admin-login?inspect`);
    await page.getByRole('heading', { name: '管理员登录' }).waitFor({ timeout: 60_000 });
    expect(modules.some((m) => m.endsWith('/src/app/inspect.ts'))).toBe(true);

    await page.getByLabel('用户名').fill('merchant');
    await page.getByLabel('密码').fill('demo1234');
    await page.getByRole('button', { name: '登录', exact: true }).click();
    await page.waitForURL(`${devUrl}/dashboard`);
    const token = await page.evaluate(() => localStorage.getItem('token'));
    expect(token).toBeTruthy();
    const sent = JSON.stringify(
      await page.evaluate(() => (window as unknown as { __sent: unknown[] }).__sent),
    );
    console.log('[inspect] messages posted:', sent.length);
    expect(sent).not.toContain(token!);
    await context.close();
  });
});
