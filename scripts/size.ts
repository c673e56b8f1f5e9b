/**
 * `npm run size`: builds the client (into a private directory, or reads `--dist <dir>`), then reads Vite's
 * manifest and prints the gzip bytes of the JS and CSS a browser needs before `/user/pay` and `/admin-login` are
 * interactive: the entry with its static imports, the route's screen chunk with its static imports, and their
 * CSS, and the brotli bytes the server really sends for them (its precompressed twins). Fails (exit 1) when `/user/pay` is above 110 KB JS / 12 KB CSS or 6 JS files (docs/decisions.md D9), or when a
 * production bundle contains the Stately inspector.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { matchRoute } from '../src/domain/routes';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const KB = 1000;
/** `jsFiles`: each file is a request a cheap phone waits for; the chunk groups in vite.config.ts keep it low. */
export const BUDGET = { path: '/user/pay', js: 110 * KB, css: 12 * KB, jsFiles: 6 } as const;
const MEASURED = ['/user/pay', '/admin-login'] as const;

interface ManifestChunk {
  file: string;
  src?: string;
  isEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
  css?: string[];
}
type Manifest = Record<string, ManifestChunk>;

function build(): string {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'scango-size-'));
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
  return out;
}

/** The chunk keys loaded before a module runs: the module and its static imports, transitively. */
export function staticClosure(manifest: Manifest, keys: string[]): Set<string> {
  const seen = new Set<string>();
  const visit = (k: string) => {
    if (seen.has(k) || !manifest[k]) return;
    seen.add(k);
    manifest[k]!.imports?.forEach(visit);
  };
  keys.forEach(visit);
  return seen;
}

export interface RouteSize {
  path: string;
  jsFiles: string[];
  cssFiles: string[];
  js: number;
  css: number;
  /** What the server actually sends a browser that accepts brotli: the build's `.br` twins (JS + CSS). */
  sentBr: number;
}

export function measure(dist: string, routePath: string): RouteSize {
  const manifest = JSON.parse(fs.readFileSync(path.join(dist, '.vite/manifest.json'), 'utf8')) as Manifest;
  const entry = Object.keys(manifest).find((k) => manifest[k]!.isEntry);
  if (!entry) throw new Error('no entry in the manifest');
  const route = matchRoute(routePath)?.route;
  if (!route) throw new Error(`no route for ${routePath}`);
  const screenKey = `src/screens/${route.screen}.tsx`;
  if (!manifest[screenKey]) throw new Error(`no chunk for ${screenKey} (is the screen file there?)`);
  const keys = [entry, screenKey];
  // Staff pages sit in the lazily loaded main layout; it is needed before they are interactive.
  if (!route.standalone) keys.push('src/app/main-layout.tsx');
  const chunks = staticClosure(manifest, keys);
  const jsFiles = [...chunks].map((k) => manifest[k]!.file);
  const cssFiles = [...new Set([...chunks].flatMap((k) => manifest[k]!.css ?? []))];
  const gz = (f: string) => gzipSync(fs.readFileSync(path.join(dist, f))).length;
  const sent = (f: string) => {
    const twin = path.join(dist, `${f}.br`);
    return fs.existsSync(twin) ? fs.statSync(twin).size : fs.statSync(path.join(dist, f)).size;
  };
  return {
    sentBr: [...jsFiles, ...cssFiles].reduce((n, f) => n + sent(f), 0),
    path: routePath,
    jsFiles,
    cssFiles,
    js: jsFiles.reduce((n, f) => n + gz(f), 0),
    css: cssFiles.reduce((n, f) => n + gz(f), 0),
  };
}

/** The chart library's chunk (docs/reports.md, "Charts"): its gzip bytes, and the pages that load it up front. */
export const CHART_CHUNK = 'src/screens/reports/parts/report-chart.tsx';
export function chartChunk(
  dist: string,
  routes: RouteSize[],
): { js: number; css: number; loadedBy: string[] } {
  const manifest = JSON.parse(fs.readFileSync(path.join(dist, '.vite/manifest.json'), 'utf8')) as Manifest;
  const chunk = manifest[CHART_CHUNK];
  if (!chunk) throw new Error(`no chunk for ${CHART_CHUNK}`);
  const gz = (f: string) => gzipSync(fs.readFileSync(path.join(dist, f))).length;
  return {
    js: gz(chunk.file),
    css: (chunk.css ?? []).reduce((n, f) => n + gz(f), 0),
    loadedBy: routes.filter((r) => r.jsFiles.includes(chunk.file)).map((r) => r.path),
  };
}

/** The report screens' chunks: what `/reports/*` loads beyond what `/dashboard` loads, the lazy chart aside. */
export function reportChunks(
  dist: string,
  shell: RouteSize,
  report: RouteSize,
): { files: string[]; js: number } {
  const files = report.jsFiles.filter((f) => !shell.jsFiles.includes(f));
  const js = files.reduce((n, f) => n + gzipSync(fs.readFileSync(path.join(dist, f))).length, 0);
  return { files, js };
}

/** Files of the production build that mention the inspector (must be none). */
export function inspectorLeaks(dist: string): string[] {
  const dir = path.join(dist, 'assets');
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.js'))
    .filter((f) =>
      /createBrowserInspector|@statelyai\/inspect|stately\.ai\/registry/.test(
        fs.readFileSync(path.join(dir, f), 'utf8'),
      ),
    );
}

function main() {
  const i = process.argv.indexOf('--dist');
  const own = i < 0;
  const dist = own ? build() : path.resolve(process.argv[i + 1] ?? 'dist');
  process.on('exit', () => {
    if (own) fs.rmSync(dist, { recursive: true, force: true });
  });
  const kb = (n: number) => `${(n / KB).toFixed(1)} KB`;
  const rows = MEASURED.map((p) => measure(dist, p));
  console.log('\nBytes (gzip) loaded before the page is interactive\n');
  console.log(
    'route'.padEnd(16) + 'JS'.padStart(12) + 'CSS'.padStart(12) + 'sent (br)'.padStart(12) + '  files',
  );
  for (const r of rows) {
    console.log(
      r.path.padEnd(16) +
        kb(r.js).padStart(12) +
        kb(r.css).padStart(12) +
        kb(r.sentBr).padStart(12) +
        `  ${r.jsFiles.length} JS, ${r.cssFiles.length} CSS`,
    );
  }
  const shell = measure(dist, '/dashboard');
  const report = measure(dist, '/reports/consumption');
  const chart = chartChunk(dist, [...rows, shell, report]);
  const screens = reportChunks(dist, shell, report);
  console.log(
    `\nreport screens: ${kb(screens.js)} JS gzip in ${screens.files.length} files beyond /dashboard's` +
      ` (${screens.files.map((f) => path.basename(f).replace(/-[\w-]{8}\.js$/, '')).join(', ')})`,
  );
  console.log(
    `report chart (uPlot, lazy, report pages only): ${kb(chart.js)} JS + ${kb(chart.css)} CSS gzip` +
      (chart.loadedBy.length ? `; loaded up front by ${chart.loadedBy.join(', ')}` : ''),
  );
  const pay = rows.find((r) => r.path === BUDGET.path)!;
  console.log(
    `\nbudget ${BUDGET.path}: JS ≤ ${kb(BUDGET.js)}, CSS ≤ ${kb(BUDGET.css)}, ≤ ${BUDGET.jsFiles} JS files`,
  );
  const failures: string[] = [];
  if (pay.js > BUDGET.js) failures.push(`JS ${kb(pay.js)} > ${kb(BUDGET.js)}`);
  if (pay.css > BUDGET.css) failures.push(`CSS ${kb(pay.css)} > ${kb(BUDGET.css)}`);
  if (pay.jsFiles.length > BUDGET.jsFiles)
    failures.push(`${pay.jsFiles.length} JS files > ${BUDGET.jsFiles}: ${pay.jsFiles.join(', ')}`);
  if (chart.loadedBy.length) failures.push(`the chart chunk loads up front on ${chart.loadedBy.join(', ')}`);
  const leaks = inspectorLeaks(dist);
  if (leaks.length) failures.push(`the Stately inspector is in the production bundle: ${leaks.join(', ')}`);
  if (failures.length) {
    console.error(`SIZE FAIL: ${failures.join('; ')}`);
    process.exit(1);
  }
  console.log('SIZE PASS: within budget, no inspector in the bundle');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
