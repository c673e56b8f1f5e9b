/**
 * `npm start` stops gracefully on SIGTERM and SIGINT (finding 9): containers and process managers signal the
 * process they started (npm), and the server behind it must shut down with it, not stay listening.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../bench/lib';

const root = path.resolve(__dirname, '../../..');
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

const healthy = (port: number) =>
  fetch(`http://127.0.0.1:${port}/backend/health`).then(
    (r) => r.status === 200,
    () => false,
  );

describe('npm start and signals', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal} to npm stops the server behind it`, async () => {
      const port = await freePort();
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'scango-signal-'));
      dirs.push(dataDir);
      const npm = spawn('npm', ['start', '--silent'], {
        cwd: root,
        env: {
          ...process.env,
          PORT: String(port),
          HOST: '127.0.0.1',
          DATA_DIR: dataDir,
          DATABASE_URL: '',
          SERVE_CLIENT: 'false',
          SEED: 'none',
          LOG_REQUESTS: 'false',
          PUBLIC_URL: '',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      npm.stdout.on('data', (d: Buffer) => (out += d.toString()));
      npm.stderr.on('data', (d: Buffer) => (out += d.toString()));
      const exited = new Promise<void>((resolve) => npm.once('exit', () => resolve()));
      const deadline = Date.now() + 90_000;
      while (!(await healthy(port))) {
        if (Date.now() > deadline || npm.exitCode !== null) throw new Error(`not healthy: ${out}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      npm.kill(signal);
      await exited;
      // The server itself is gone too: nothing answers on its port any more.
      const stopBy = Date.now() + 15_000;
      while ((await healthy(port)) && Date.now() < stopBy) await new Promise((r) => setTimeout(r, 100));
      expect(await healthy(port), out).toBe(false);
      expect(out).toContain(`${signal} received`);
    }, 120_000);
  }
});
