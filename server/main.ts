/**
 * `npm start`: builds the client when dist/ is missing or older than the sources, then starts the server with the
 * process environment and shuts it down gracefully on SIGTERM / SIGINT (HTTP server, hooks, database).
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EnvError, parseEnv } from './env';
import { clientIsStale } from './lib/client-build';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function buildClientIfNeeded(): void {
  if (!clientIsStale(root)) return;
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
