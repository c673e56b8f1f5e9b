import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { limitBody } from '../../../server/lib/body-limit.middleware';

const LIMIT = 100;
const app = new Hono();
app.use(
  '*',
  limitBody(LIMIT, (c) => c.text('too big', 413)),
);
app.post('/echo', async (c) => c.text(String((await c.req.text()).length)));
app.get('/echo', (c) => c.text('get'));

let server: ReturnType<typeof serve>;
let port: number;
beforeAll(async () => {
  server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise((r) => server.once('listening', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise((r) => server.close(r)));

/** A POST over a real socket; `chunked` sends the body in pieces with no Content-Length. */
const post = (body: string, chunked: boolean) =>
  new Promise<{ status: number; text: string }>((resolve, reject) => {
    const headers = chunked
      ? { 'Transfer-Encoding': 'chunked' }
      : { 'Content-Length': Buffer.byteLength(body) };
    const req = http.request({ host: '127.0.0.1', port, path: '/echo', method: 'POST', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, text }));
    });
    req.on('error', reject);
    for (let i = 0; i < body.length; i += 30) req.write(body.slice(i, i + 30));
    req.end();
  });

describe('limitBody: the app-wide ceiling on a request body', () => {
  it('decides by Content-Length when the body states it', async () => {
    expect(await post('x'.repeat(LIMIT), false)).toEqual({ status: 200, text: String(LIMIT) });
    expect((await post('x'.repeat(LIMIT + 1), false)).status).toBe(413);
  });

  it('counts a chunked body as it arrives', async () => {
    expect(await post('x'.repeat(LIMIT), true)).toEqual({ status: 200, text: String(LIMIT) });
    expect((await post('x'.repeat(LIMIT + 1), true)).status).toBe(413);
  });

  it('counts a body of no stated length made in-process, and lets a GET through', async () => {
    const over = await app.request('/echo', { method: 'POST', body: 'x'.repeat(LIMIT + 1) });
    expect(over.status).toBe(413);
    const under = await app.request('/echo', { method: 'POST', body: 'x'.repeat(LIMIT) });
    expect(await under.text()).toBe(String(LIMIT));
    expect(await (await app.request('/echo')).text()).toBe('get');
  });
});
