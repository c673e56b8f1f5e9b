/* global URL, console */
// Our npm registry mirror has no darwin/windows/... builds of Tailwind's oxide engine, so `npm install` leaves them
// out of package-lock.json and `npm ci` then refuses the lock as out of sync. This restores their lock entries
// (optional, with their os/cpu) so `npm ci` works here and on every other platform. Run after changing dependencies:
//   node scripts/lock-optional-platforms.mjs
import fs from 'node:fs';

const lockPath = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(fs.readFileSync(lockPath, 'utf8'));
const PLATFORM = {
  'android-arm64': { os: ['android'], cpu: ['arm64'] },
  'darwin-arm64': { os: ['darwin'], cpu: ['arm64'] },
  'darwin-x64': { os: ['darwin'], cpu: ['x64'] },
  'freebsd-x64': { os: ['freebsd'], cpu: ['x64'] },
  'linux-arm-gnueabihf': { os: ['linux'], cpu: ['arm'] },
  'linux-arm64-gnu': { os: ['linux'], cpu: ['arm64'] },
  'linux-arm64-musl': { os: ['linux'], cpu: ['arm64'] },
  'linux-x64-gnu': { os: ['linux'], cpu: ['x64'] },
  'linux-x64-musl': { os: ['linux'], cpu: ['x64'] },
  'wasm32-wasi': { cpu: ['wasm32'] },
  'win32-arm64-msvc': { os: ['win32'], cpu: ['arm64'] },
  'win32-x64-msvc': { os: ['win32'], cpu: ['x64'] },
};
let added = 0;
for (const [key, pkg] of Object.entries(lock.packages)) {
  for (const [dep, version] of Object.entries(pkg.optionalDependencies ?? {})) {
    const m = /^@tailwindcss\/oxide-(.+)$/.exec(dep);
    if (!m || !PLATFORM[m[1]]) continue;
    const base = key.endsWith('node_modules/@tailwindcss/oxide')
      ? key.slice(0, -'@tailwindcss/oxide'.length)
      : 'node_modules/';
    const entryKey = `${base}${dep}`;
    if (lock.packages[entryKey]) continue;
    lock.packages[entryKey] = {
      version,
      dev: pkg.dev,
      optional: true,
      license: 'MIT',
      ...PLATFORM[m[1]],
      engines: { node: '>= 20' },
    };
    added++;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => a.localeCompare(b, 'en')),
);
fs.writeFileSync(lockPath, JSON.stringify(lock, null, 2) + '\n');
console.log(`lock: ${added} optional platform entries restored`);
