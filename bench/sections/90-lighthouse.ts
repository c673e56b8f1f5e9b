/**
 * Lighthouse (npm `lighthouse`, Debian's Chromium, mobile preset with simulated 4G throttling) against `npm start`
 * (`server/main.ts`: the production build, NODE_ENV=production, a fresh seeded embedded DB) for `/user/pay`,
 * `/admin-login` and `/dashboard`. `/dashboard` is signed in as the demo merchant: before each run its token goes
 * into local storage and the HTTP cache is emptied, and Lighthouse is told not to clear storage. Median of 3 runs by
 * score; records score, FCP, LCP, TBT, CLS and the bytes transferred. BENCH_LIGHTHOUSE_RUNS changes the count.
 */
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS } from '../../tests/e2e/harness';
import { round, startServerProcess } from '../lib';
import type { BenchContext, BenchRow } from '../types';

const CHROME_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

interface Run {
  score: number;
  fcp: number;
  lcp: number;
  tbt: number;
  cls: number;
  bytes: number;
}

/**
 * Puts the demo merchant's token in local storage and empties the HTTP cache, so a `/dashboard` run signed in
 * still downloads everything as a first visit would.
 */
async function signInMerchant(base: string, port: number): Promise<void> {
  const res = await fetch(`${base}/backend/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username: 'merchant', password: 'demo1234' }),
  });
  const { token, user } = (await res.json()) as { token: string; user: unknown };
  const browser = await chromium.connectOverCDP(`http://127.0.0.1:${port}`);
  const page = await browser.contexts()[0]!.newPage();
  await page.goto(`${base}/admin-login`);
  await page.evaluate(
    ([t, u]) => {
      localStorage.setItem('token', t);
      localStorage.setItem('user', u);
    },
    [token, JSON.stringify(user)] as const,
  );
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.clearBrowserCache');
  await page.close();
  await browser.close();
}

/** One Lighthouse run; a run Lighthouse itself reports as broken (e.g. a lost trace) is tried again, twice. */
async function audit(url: string, port: number, keepStorage: boolean, tries = 3): Promise<Run> {
  const result = await lighthouse(url, {
    port,
    onlyCategories: ['performance'],
    disableStorageReset: keepStorage,
    logLevel: 'error',
    output: 'json',
  });
  if (result?.lhr.runtimeError && tries > 1) return audit(url, port, keepStorage, tries - 1);
  const a = result!.lhr.audits;
  const num = (k: string) => a[k]?.numericValue ?? NaN;
  return {
    score: Math.round((result!.lhr.categories.performance?.score ?? 0) * 100),
    fcp: num('first-contentful-paint'),
    lcp: num('largest-contentful-paint'),
    tbt: num('total-blocking-time'),
    cls: num('cumulative-layout-shift'),
    bytes: num('total-byte-weight'),
  };
}

export default async function lighthouseSection(ctx: BenchContext): Promise<BenchRow[]> {
  const runs = Number(process.env.BENCH_LIGHTHOUSE_RUNS ?? 3);
  const server = await startServerProcess(ctx, 'lighthouse');
  const base = `http://127.0.0.1:${server.port}`;
  const chrome = await chromeLauncher.launch({
    chromePath: CHROME_PATH,
    chromeFlags: CHROMIUM_ARGS,
  });
  const rows: BenchRow[] = [];
  try {
    for (const page of ['/user/pay?device_id=1&venue_id=1', '/admin-login', '/dashboard']) {
      const signedIn = page === '/dashboard';
      const results: Run[] = [];
      for (let i = 0; i < runs; i++) {
        ctx.log(`lighthouse ${page} run ${i + 1}/${runs}`);
        if (signedIn) await signInMerchant(base, chrome.port);
        results.push(await audit(base + page, chrome.port, signedIn));
      }
      const m = results.sort((x, y) => x.score - y.score)[Math.floor(results.length / 2)]!;
      rows.push({
        section: 'lighthouse',
        name: `${page.split('?')[0]} (mobile, 4G simulated, median of ${runs})`,
        score: m.score,
        fcp_ms: round(m.fcp, 0),
        lcp_ms: round(m.lcp, 0),
        tbt_ms: round(m.tbt, 0),
        cls: round(m.cls, 3),
        transfer_bytes: m.bytes,
        note: `scores ${results.map((r) => r.score).join('/')}`,
      });
    }
  } finally {
    chrome.kill();
    await server.stop();
  }
  return rows;
}
