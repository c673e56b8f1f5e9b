/**
 * The browser-test harness: the real server (fresh embedded DB, demo data, the built client), Debian's Chromium
 * through playwright-core at a phone viewport, and helpers to sign in through the real sign-in screen and to take
 * screenshots. Every e2e file uses it; nothing here is faked.
 *
 *   const app = await startApp();            // { url, close, server }
 *   const browser = await launchBrowser();
 *   const { page } = await newPhonePage(browser);
 *   await loginAs(page, app.url, 'merchant');
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const SCREENSHOT_DIR = path.join(ROOT, 'docs/screenshots');
export const PHONE = { width: 390, height: 844 } as const;
export const DEMO_PASSWORD = 'demo1234';
export type DemoAccount = 'admin' | 'merchant' | 'partner' | 'employee';
/** Level of each demo account (docs/decisions.md D10). */
export const DEMO_LEVELS: Record<DemoAccount, number> = { admin: 1, merchant: 2, partner: 3, employee: 4 };
/** A WeChat in-app browser user agent (Android XWeb), for end-user journeys. */
export const WECHAT_UA =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/116.0.0.0 ' +
  'Mobile Safari/537.36 XWEB/1160065 MMWEBSDK/20231202 MicroMessenger/8.0.47.2560(0x28002F30) WeChat/arm64 ' +
  'Weixin NetType/WIFI Language/zh_CN ABI/arm64';

let builtDir: string | undefined;

function newestMtime(entries: string[]): number {
  let newest = 0;
  const walk = (p: string) => {
    let st: fs.Stats;
    try {
      st = fs.statSync(p);
    } catch {
      return;
    }
    if (st.isDirectory()) for (const e of fs.readdirSync(p)) walk(path.join(p, e));
    else newest = Math.max(newest, st.mtimeMs);
  };
  entries.forEach((e) => walk(path.join(ROOT, e)));
  return newest;
}

/**
 * Builds the client once per test process into a private directory (so a teammate's `vite build` into dist/
 * cannot swap chunks under a running test). `E2E_DIST=<dir>` uses an existing build instead.
 */
export function ensureClientBuilt(): string {
  if (process.env.E2E_DIST) return path.resolve(process.env.E2E_DIST);
  if (builtDir) return builtDir;
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'scango-e2e-dist-'));
  const started = Date.now();
  const res = spawnSync(
    process.execPath,
    [
      path.join(ROOT, 'node_modules/vite/bin/vite.js'),
      'build',
      '--outDir',
      out,
      '--emptyOutDir',
      '--logLevel',
      'warn',
    ],
    { cwd: ROOT, stdio: 'inherit' },
  );
  if (res.status !== 0) throw new Error(`vite build failed (exit ${res.status})`);
  console.log(`[e2e] client built in ${Date.now() - started} ms -> ${out}`);
  builtDir = out;
  // The private build lives as long as this test process.
  process.once('exit', () => fs.rmSync(out, { recursive: true, force: true }));
  return out;
}

/** Age check used by the runner's banner: is dist/ older than the sources? */
export function distIsStale(dist = path.join(ROOT, 'dist')): boolean {
  const built = newestMtime([path.relative(ROOT, dist)]);
  return built === 0 || newestMtime(['src', 'index.html']) > built;
}

export interface RunningApp {
  url: string;
  port: number;
  /** The server's dependencies (db, env, ...), for tests that change data through the real services. */
  server: {
    deps: unknown;
  };
  dataDir: string;
  close(): Promise<void>;
}

/**
 * Starts the real server on 127.0.0.1 with a fresh embedded DB (or `E2E_DATABASE_URL`), demo data and the built
 * client. `env` overrides win.
 */
export async function startApp(env: Record<string, string | number | boolean> = {}): Promise<RunningApp> {
  const clientDir = ensureClientBuilt();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'scango-e2e-data-'));
  // Imported lazily so a missing server module fails the test with a clear message, not the file's import.
  const { startServer } = await import('../../server/start');
  const running = await startServer(
    {
      PORT: 0,
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      SEED: 'demo',
      SERVE_CLIENT: true,
      LOG_REQUESTS: false,
      NODE_ENV: 'test',
      ...(process.env.E2E_DATABASE_URL
        ? { DATABASE_URL: process.env.E2E_DATABASE_URL, WECHAT_SANDBOX: true }
        : {}),
      ...env,
    } as Parameters<typeof startServer>[0],
    { quiet: true, deps: { clientDir } },
  );
  // The address PUBLIC_URL names (localhost:<port>): WeChat sign-in binds its state to a cookie of the host that
  // started it and returns to PUBLIC_URL, so pages and sign-in must share one host, as they do in production.
  const url = `http://localhost:${running.port}`;
  return {
    url,
    port: running.port,
    server: running,
    dataDir,
    close: async () => {
      await running.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export const CHROMIUM_ARGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
  });
}

export interface PhonePage {
  context: BrowserContext;
  page: Page;
  /** Console messages seen so far (type and text), for assertions on logged errors. */
  console: { type: string; text: string }[];
}

/** A fresh context at 390x844 (touch, zh-CN, Asia/Shanghai), optionally with another user agent. */
export async function newPhonePage(
  browser: Browser,
  opts: { userAgent?: string; baseURL?: string } = {},
): Promise<PhonePage> {
  const context = await browser.newContext({
    viewport: PHONE,
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
    locale: 'zh-CN',
    timezoneId: 'Asia/Shanghai',
    ...(opts.userAgent ? { userAgent: opts.userAgent } : {}),
    ...(opts.baseURL ? { baseURL: opts.baseURL } : {}),
  });
  const page = await context.newPage();
  const messages: { type: string; text: string }[] = [];
  page.on('console', (m) => messages.push({ type: m.type(), text: m.text() }));
  page.on('pageerror', (e) => messages.push({ type: 'pageerror', text: String(e) }));
  return { context, page, console: messages };
}

/** Where each account lands after signing in: level 3 on /wallet, the others on /dashboard. */
export function landingPathOf(account: DemoAccount): string {
  return DEMO_LEVELS[account] === 3 ? '/wallet' : '/dashboard';
}

/** Signs in through the real /admin-login screen and waits for the level's first tab. */
export async function loginAs(page: Page, baseUrl: string, account: DemoAccount, password = DEMO_PASSWORD) {
  await page.goto(`${baseUrl}/admin-login`);
  await page.getByLabel('用户名').fill(account);
  await page.getByLabel('密码').fill(password);
  await page.getByRole('button', { name: '登录', exact: true }).click();
  await page.waitForURL(`${baseUrl}${landingPathOf(account)}`);
}

/** Reads the path + query the page is on. */
export function pathOf(page: Page): string {
  const u = new URL(page.url());
  return u.pathname + u.search;
}

/** Saves a PNG of the viewport into docs/screenshots/<name>.png and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: false, animations: 'disabled' });
  return file;
}

/** The token and user in both storages of the page's origin. */
export async function readStorages(page: Page) {
  return page.evaluate(() => ({
    local: { token: localStorage.getItem('token'), user: localStorage.getItem('user') },
    session: { token: sessionStorage.getItem('token'), user: sessionStorage.getItem('user') },
  }));
}
