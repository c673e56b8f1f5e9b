/**
 * `npm start`: builds the client when dist/ is missing or older than the sources, then starts the server with the
 * process environment and shuts it down gracefully on SIGTERM / SIGINT (hooks, HTTP server, database).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EnvError, parseEnv } from './env';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function newestMtime(p: string): number {
  let st: fs.Stats;
  try {
    st = fs.statSync(p);
  } catch {
    return 0;
  }
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const entry of fs.readdirSync(p)) newest = Math.max(newest, newestMtime(path.join(p, entry)));
  return newest;
}

/** True when dist/index.html is missing or older than anything the build reads. */
export function clientIsStale(): boolean {
  const built = newestMtime(path.join(root, 'dist', 'index.html'));
  if (!built) return true;
  const inputs = ['src', 'index.html', 'public', 'vite.config.ts', 'package.json'].map((p) =>
    path.join(root, p),
  );
  return inputs.some((p) => newestMtime(p) > built);
}

function buildClientIfNeeded(): void {
  if (!clientIsStale()) return;
  console.log('Building the client (dist/ is missing or older than src/)...');
  const res = spawnSync(
    process.platform === 'win32' ? 'npx.cmd' : 'npx',
    ['vite', 'build', '--logLevel', 'warn'],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
  if (res.status !== 0) {
    console.error('Client build failed; see the errors above.');
    process.exit(1);
  }
}

async function main(): Promise<void> {
  process.env.NODE_ENV ??= 'production';
  process.env.TZ ??= 'Asia/Shanghai';
  // Fail fast on bad configuration, before spending a minute on a build.
  let serveClient: boolean;
  try {
    serveClient = parseEnv().SERVE_CLIENT;
  } catch (err) {
    if (err instanceof EnvError) {
      console.error(err.message);
      process.exit(2);
    }
    throw err;
  }
  if (serveClient) buildClientIfNeeded();
  const { startServer } = await import('./start');
  const running = await startServer();
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal} received, shutting down...`);
    const force = setTimeout(() => {
      console.error('Shutdown took too long; exiting.');
      process.exit(1);
    }, 10_000);
    force.unref();
    running.close().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error('Shutdown failed:', err);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
