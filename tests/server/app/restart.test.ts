/**
 * Stops a real listening server and starts it again on the same data (a PGlite DATA_DIR, or the same PostgreSQL
 * database with TEST_DATABASE_URL): accounts, tokens, changed settings are all still there.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../../server/start';
import type { EnvInput } from '../../../server/env';
import { SERVER_ARGS } from '../../../scripts/server-command';

let dataDir: string;
let env: EnvInput;
let dropDb: (() => Promise<void>) | undefined;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'scango-restart-'));
  env = {
    PORT: 0,
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    SERVE_CLIENT: false,
    LOG_REQUESTS: false,
    NODE_ENV: 'test',
  };
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (adminUrl) {
    const { default: pg } = await import('pg');
    const name = `t_${randomBytes(6).toString('hex')}`;
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    await c.query(`create database ${name}`);
    await c.end();
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    env.DATABASE_URL = url.toString();
    env.WECHAT_SANDBOX = true;
    dropDb = async () => {
      const d = new pg.Client({ connectionString: adminUrl });
      await d.connect();
      await d.query(`drop database if exists ${name} with (force)`);
      await d.end();
    };
  }
  // The first start of a fresh database (PGlite's initdb, the migrations, the demo seed) happens here, under the
  // hook's limit: the tests are about data kept across a stop and a start (npm run bench times a first install).
  await (await startServer(env, { quiet: true })).close();
});
afterAll(async () => {
  await dropDb?.();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function call(url: string, p: string, init: RequestInit = {}) {
  const res = await fetch(url + p, init);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('restart on the same data', () => {
  it('keeps accounts, tokens and changed data across a stop and a start', async () => {
    const first = await startServer(env, { quiet: true });
    let token: string;
    try {
      const health = await call(first.url, '/backend/health');
      expect(health.status).toBe(200);
      const login = await call(first.url, '/backend/auth/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'admin', password: 'demo1234' }),
      });
      expect(login.status).toBe(200);
      token = login.body.token as string;
      const put = await call(first.url, '/backend/admin/permissions', {
        method: 'PUT',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ items: [{ level: 3, feature: 'reports.recharge', allowed: true }] }),
      });
      expect(put.status).toBe(200);
    } finally {
      await first.close();
    }
    // The port is free again and the data is on disk (or in PostgreSQL).
    await expect(fetch(first.url + '/backend/health')).rejects.toThrow();

    const second = await startServer(env, { quiet: true });
    try {
      const me = await call(second.url, '/backend/auth/me', {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(me.status).toBe(200);
      const partnerToken = (
        await call(second.url, '/backend/auth/login', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ username: 'partner', password: 'demo1234' }),
        })
      ).body.token as string;
      const partnerMe = await call(second.url, '/backend/auth/me', {
        headers: { authorization: `Bearer ${partnerToken}` },
      });
      expect(partnerMe.body.features).toEqual(['reports.recharge', 'wallet']);
      // Not seeded twice.
      const dash = await call(second.url, '/backend/dashboard', {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(dash.body).toMatchObject({ venues: 2, devices: 6 });
    } finally {
      await second.close();
    }
  });
});

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

describe('the server process', () => {
  it('starts with `server/main.ts`, prints the demo accounts and pay links, and exits 0 on SIGTERM', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, SERVER_ARGS, {
      cwd: path.resolve(__dirname, '../../..'),
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        DATABASE_URL: String(env.DATABASE_URL ?? ''),
        WECHAT_SANDBOX: 'true',
        SERVE_CLIENT: 'false',
        PUBLIC_URL: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const deadline = Date.now() + 90_000;
      let healthy = false;
      while (!healthy && Date.now() < deadline && child.exitCode === null) {
        healthy = await fetch(`http://127.0.0.1:${port}/backend/health`).then(
          (r) => r.status === 200,
          () => false,
        );
        if (!healthy) await new Promise((r) => setTimeout(r, 100));
      }
      expect(healthy, out).toBe(true);
      // The banner is printed once the app is ready; give the pipe a moment.
      const link = `http://localhost:${port}/user/pay?device_id=1&venue_id=1`;
      while (!out.includes(link) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(out).toContain('admin');
      expect(out).toContain(link);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(out).toContain('SIGTERM received');
  }, 120_000);
});
