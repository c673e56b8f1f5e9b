/**
 * `npm run test:e2e [-- <file filter>]`: runs every tests/e2e/**\/*.e2e.ts with vitest (node, one fork) and ends
 * with one clear PASS/FAIL line. Needs Chromium at /usr/bin/chromium (or CHROMIUM_PATH).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, ensureClientBuilt } from './harness';

const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
if (!fs.existsSync(chromium)) {
  console.error(
    `E2E FAIL: Chromium not found at ${chromium} (apt-get install -y chromium, or set CHROMIUM_PATH)`,
  );
  process.exit(1);
}
// CI collects a JSON report (E2E_JSON=<file>) next to the usual output.
const report = process.env.E2E_JSON
  ? ['--reporter=verbose', '--reporter=json', `--outputFile.json=${path.resolve(process.env.E2E_JSON)}`]
  : ['--reporter=verbose'];
const started = Date.now();
// One client build for every e2e file (each file starts its own server on it); removed at the end.
const ownBuild = !process.env.E2E_DIST;
const dist = ensureClientBuilt();
const res = spawnSync(
  process.execPath,
  [
    path.join(ROOT, 'node_modules/vitest/vitest.mjs'),
    'run',
    '--config',
    'vitest.e2e.config.ts',
    ...report,
    ...process.argv.slice(2),
  ],
  { cwd: ROOT, stdio: 'inherit', env: { ...process.env, E2E_DIST: dist } },
);
if (ownBuild) fs.rmSync(dist, { recursive: true, force: true });
const secs = ((Date.now() - started) / 1000).toFixed(1);
if (res.status === 0) {
  console.log(`\nE2E PASS: every browser test passed (${secs} s)`);
} else {
  console.error(
    `\nE2E FAIL: vitest exited with ${res.status ?? res.signal} (${secs} s); see the failures above`,
  );
}
process.exit(res.status ?? 1);
