/**
 * Lighthouse (npm `lighthouse`, Debian's Chromium, mobile preset with simulated 4G throttling) against `npm start`
 * (`server/main.ts`: the production build, NODE_ENV=production, a fresh seeded embedded DB) for `/user/pay`,
 * `/admin-login` and `/dashboard`. `/dashboard` is signed in as the demo merchant: before each run its token goes
 * into local storage and the HTTP cache is emptied, and Lighthouse is told not to clear storage. Median of 3 runs by
 * score; records score, FCP, LCP, TBT, CLS and the bytes transferred. A broken run (Lighthouse's runtime error, no
 * score, a metric it could not compute) is run again and never counted. BENCH_LIGHTHOUSE_RUNS changes the count.
 */
import os from 'node:os';
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

/** A run that measured nothing: Lighthouse's own runtime error, no score, or a metric it could not compute. */
function broken(run: Run | undefined): boolean {
  return !run || !(run.score > 0) || [run.fcp, run.lcp, run.tbt, run.cls].some((v) => !Number.isFinite(v));
}

/** One Lighthouse run, or undefined when it broke (e.g. NO_NAVSTART, a lost trace, an LCP it could not find). */
async function auditOnce(url: string, port: number, keepStorage: boolean): Promise<Run | undefined> {
  const result = await lighthouse(url, {
    port,
    onlyCategories: ['performance'],
    disableStorageReset: keepStorage,
    logLevel: 'error',
    output: 'json',
  }).catch(() => undefined);
  if (!result || result.lhr.runtimeError) return undefined;
  const a = result.lhr.audits;
  const num = (k: string) => a[k]?.numericValue ?? NaN;
  const run: Run = {
    score: Math.round((result.lhr.categories.performance?.score ?? 0) * 100),
    fcp: num('first-contentful-paint'),
    lcp: num('largest-contentful-paint'),
    tbt: num('total-blocking-time'),
    cls: num('cumulative-layout-shift'),
    bytes: num('total-byte-weight'),
  };
  return broken(run) ? undefined : run;
}

/**
 * One measured run: a broken run is tried again (up to `tries` in all) and never counted, so a lost trace cannot
 * put a 0 into the median.
 */
async function audit(
  url: string,
  port: number,
  keepStorage: boolean,
  prepare: () => Promise<void>,
  tries = 4,
): Promise<{ run?: Run; broken: number }> {
  for (let i = 0; i < tries; i++) {
    await prepare();
    const run = await auditOnce(url, port, keepStorage);
    if (run) return { run, broken: i };
  }
  return { broken: tries };
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
      let brokenRuns = 0;
      for (let i = 0; i < runs; i++) {
        ctx.log(`lighthouse ${page} run ${i + 1}/${runs}`);
        const prepare = signedIn ? () => signInMerchant(base, chrome.port) : async () => undefined;
        const { run, broken } = await audit(base + page, chrome.port, signedIn, prepare);
        brokenRuns += broken;
        if (run) results.push(run);
      }
      if (results.length === 0) throw new Error(`lighthouse ${page}: every run broke`);
      const m = results.sort((x, y) => x.score - y.score)[Math.floor(results.length / 2)]!;
      rows.push({
        section: 'lighthouse',
        name: `${page.split('?')[0]} (mobile, 4G simulated, median of ${results.length})`,
        score: m.score,
        fcp_ms: round(m.fcp, 0),
        lcp_ms: round(m.lcp, 0),
        tbt_ms: round(m.tbt, 0),
        cls: round(m.cls, 3),
        transfer_bytes: m.bytes,
        note:
          `scores ${results.map((r) => r.score).join('/')}` +
          (brokenRuns ? `; ${brokenRuns} broken run(s) retried, not counted` : '') +
          `; load average ${os.loadavg()[0]!.toFixed(1)}`,
      });
    }
  } finally {
    chrome.kill();
    await server.stop();
  }
  return rows;
}
