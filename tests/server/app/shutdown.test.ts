/**
 * The order of a stop (`close()`, which SIGTERM runs): the HTTP server stops taking requests and the ones in flight
 * are answered with the background work (device gateway, schedulers) and the database still running; only then
 * are the start hooks stopped and the database closed. A pay accepted during a stop thus has its device's start
 * command sent by the devices service, not left for the deadline's refund.
 */
import http from 'node:http';
import net from 'node:net';
import { sql } from 'drizzle-orm';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../../server/start';

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A request on a connection of its own (never a kept-alive one): its status, or the connection's error code. */
function freshRequest(url: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
  });
}

describe('stopping the server', () => {
  it('answers the requests in flight before it stops the background work and the database', async () => {
    const events: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let entered!: () => void;
    const inHandler = new Promise<void>((r) => (entered = r));
    const routes = new Hono().get('/', async (c) => {
      entered();
      await gate;
      // The database and every hook still up: what a pay's commit and its start command need.
      const { rows } = (await server!.deps.db.execute(sql`select 1 as one`)) as unknown as {
        rows: { one: number }[];
      };
      events.push('answered');
      return c.json({ one: rows[0]!.one, stoppedBefore: events.includes('hooks stopped') });
    });
    server = await startServer(
      {
        DATA_DIR: 'memory://',
        PORT: 0,
        HOST: '127.0.0.1',
        SERVE_CLIENT: false,
        LOG_REQUESTS: false,
        NODE_ENV: 'test',
      },
      {
        quiet: true,
        deps: {
          mounts: [{ path: '/backend/test-slow', routes }],
          // Started after the server's own hooks, so stopped before them: while it has not, none has.
          onStart: [() => () => void events.push('hooks stopped')],
        },
      },
    );
    const { url } = server;
    expect(await freshRequest(`${url}/backend/health`)).toBe(200);

    // The slow request on a connection of its own, kept open (HTTP/1.1 keep-alive) to send a second one on it.
    const socket = net.connect(Number(new URL(url).port), '127.0.0.1');
    let raw = '';
    socket.setEncoding('utf8').on('data', (d: string) => (raw += d));
    socket.write('GET /backend/test-slow HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await inHandler;
    const closing = server.close();
    // A second call (a signal twice, a test's cleanup) waits for the same stop instead of starting another.
    expect(server.close()).toBe(closing);
    // Stopping: no new connections, the background work untouched while the request is in flight.
    await new Promise((r) => setTimeout(r, 100));
    expect(await freshRequest(`${url}/backend/health`)).toBe('ECONNREFUSED');
    expect(events).toEqual([]);
    // A request that comes on an open connection now is told to try again (elsewhere, or after the restart).
    socket.write('GET /backend/health HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await new Promise((r) => setTimeout(r, 100));

    release();
    await new Promise((r) => socket.once('close', r));
    const [first, second] = raw.split(/(?=HTTP\/1\.1 )/);
    expect(first).toMatch(/^HTTP\/1\.1 200 /);
    expect(first).toContain('{"one":1,"stoppedBefore":false}');
    expect(second).toMatch(/^HTTP\/1\.1 503 /);
    expect(second).toMatch(/\r\nretry-after: 1\r\n/i);
    expect(second).toMatch(/\r\nconnection: close\r\n/i);
    expect(second).toContain('"code":"STOPPING"');
    await closing;
    expect(events).toEqual(['answered', 'hooks stopped']);
    server = undefined;
  });
});
