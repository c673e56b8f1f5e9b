/**
 * Runs the reports' daily rollup (report-rollup.ts) with the server: shortly after start, then every 10 minutes,
 * one run at a time. Several instances may run it (days are claimed with a row lock). A failed run is logged and
 * retried at the next tick; the reports stay exact meanwhile (days not rolled are computed from the orders).
 */
import type { StartHook } from '../context';
import { rollUpReports } from './report-rollup';

const FIRST_RUN_MS = 10_000;
const EVERY_MS = 10 * 60_000;

export const reportRollupStartHook: StartHook = (deps) => {
  let running: Promise<unknown> | null = null;
  const run = () => {
    if (running) return;
    running = rollUpReports(deps.db, deps.env.TZ, deps.now())
      .catch((err: unknown) => console.error('report rollup failed:', err))
      .finally(() => {
        running = null;
      });
  };
  const first = setTimeout(run, FIRST_RUN_MS);
  const timer = setInterval(run, EVERY_MS);
  first.unref();
  timer.unref();
  return async () => {
    clearTimeout(first);
    clearInterval(timer);
    await running;
  };
};
