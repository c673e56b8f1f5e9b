/**
 * `npm run dev`: the API on PORT (default 8080) restarted by `tsx watch` on server changes, and Vite's dev server
 * with hot reload, which proxies /backend to the API (vite.config.ts). Ctrl-C stops both.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const apiPort = process.env.PORT ?? '8080';
const env = {
  ...process.env,
  NODE_ENV: process.env.NODE_ENV ?? 'development',
  PORT: apiPort,
  API_PORT: apiPort,
  SERVE_CLIENT: 'false',
  // Pay links printed by the API should open the Vite page (which proxies the API).
  PUBLIC_URL: process.env.PUBLIC_URL ?? `http://localhost:${process.env.VITE_PORT ?? '5173'}`,
};

// Each child leads its own process group, so stopping kills the watcher AND the server it runs.
const run = (args: string[]) =>
  spawn(process.execPath, args, { cwd: root, stdio: 'inherit', env, detached: true });
const children: ChildProcess[] = [
  run([path.join(root, 'node_modules/tsx/dist/cli.mjs'), 'watch', '--clear-screen=false', 'server/main.ts']),
  run([path.join(root, 'node_modules/vite/bin/vite.js'), '--port', process.env.VITE_PORT ?? '5173']),
];

let stopping = false;
function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  for (const c of children) {
    if (c.pid === undefined || c.exitCode !== null) continue;
    try {
      process.kill(-c.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  setTimeout(() => process.exit(code), 3000).unref();
}
for (const c of children) c.on('exit', (code) => stop(code ?? 0));
process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));
