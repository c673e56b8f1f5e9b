import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import { compressJson, pickEncoding, precompressDir } from '../../../server/lib/compression';
import { securityHeaders } from '../../../server/lib/security-headers.middleware';
import { createTestApp, type TestApp } from '../test-app';

let dir: string;
let t: TestApp;
const script = `console.log(${JSON.stringify('扫码即用 '.repeat(2000))});\n`;
const html = `<!doctype html><html><head><title>扫码即用</title></head><body>${'<p>x</p>'.repeat(300)}</body></html>`;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scango-dist-'));
  fs.mkdirSync(path.join(dir, 'assets'));
  fs.writeFileSync(path.join(dir, 'assets/index-abc123.js'), script);
  fs.writeFileSync(path.join(dir, 'assets/tiny-abc123.js'), 'export{};');
  fs.writeFileSync(path.join(dir, 'assets/logo-abc123.png'), Buffer.alloc(4000, 7));
  fs.writeFileSync(path.join(dir, 'index.html'), html);
  precompressDir(dir);
  t = await createTestApp({ env: { SERVE_CLIENT: true }, deps: { clientDir: dir } });
});
afterAll(async () => {
  await t?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const get = (p: string, enc?: string) =>
  t.request(p, { headers: enc === undefined ? {} : { 'Accept-Encoding': enc } });

describe('Accept-Encoding negotiation', () => {
  it('prefers brotli, honours q-values and refusals, falls back to identity', () => {
    expect(pickEncoding('gzip, deflate, br')).toBe('br');
    expect(pickEncoding('gzip')).toBe('gzip');
    expect(pickEncoding('br;q=0.5, gzip;q=0.8')).toBe('gzip');
    expect(pickEncoding('br;q=0, gzip;q=0')).toBeUndefined();
    expect(pickEncoding('*')).toBe('br');
    expect(pickEncoding('identity')).toBeUndefined();
    expect(pickEncoding(undefined)).toBeUndefined();
  });
});

describe('the built client is sent precompressed', () => {
  it('writes a .br and a .gz twin beside text files over 1 KB only', () => {
    expect(fs.existsSync(path.join(dir, 'assets/index-abc123.js.br'))).toBe(true);
    expect(fs.existsSync(path.join(dir, 'assets/index-abc123.js.gz'))).toBe(true);
    expect(fs.existsSync(path.join(dir, 'assets/tiny-abc123.js.br'))).toBe(false);
    expect(fs.existsSync(path.join(dir, 'assets/logo-abc123.png.br'))).toBe(false);
  });

  it('answers brotli to a browser that takes it: the right headers and bytes that decode to the file', async () => {
    const res = await get('/assets/index-abc123.js', 'gzip, deflate, br');
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Encoding')).toBe('br');
    expect(res.headers.get('Vary')).toBe('Accept-Encoding');
    expect(res.headers.get('Content-Type')).toMatch(/javascript/);
    expect(res.headers.get('Cache-Control')).toBe('public, max-age=31536000, immutable');
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.length).toBeLessThan(Buffer.byteLength(script) / 5);
    expect(zlib.brotliDecompressSync(body).toString()).toBe(script);
  });

  it('answers gzip when only gzip is accepted, and the file itself when nothing is', async () => {
    const gz = await get('/assets/index-abc123.js', 'gzip');
    expect(gz.headers.get('Content-Encoding')).toBe('gzip');
    expect(zlib.gunzipSync(Buffer.from(await gz.arrayBuffer())).toString()).toBe(script);
    const plain = await get('/assets/index-abc123.js');
    expect(plain.headers.get('Content-Encoding')).toBeNull();
    expect(plain.headers.get('Vary')).toBe('Accept-Encoding');
    expect(await plain.text()).toBe(script);
  });

  it('sends small files and images as they are', async () => {
    const tiny = await get('/assets/tiny-abc123.js', 'br');
    expect(tiny.headers.get('Content-Encoding')).toBeNull();
    expect(await tiny.text()).toBe('export{};');
    const png = await get('/assets/logo-abc123.png', 'br');
    expect(png.headers.get('Content-Encoding')).toBeNull();
    expect(png.headers.get('Vary')).toBeNull();
    expect((await png.arrayBuffer()).byteLength).toBe(4000);
  });

  it('compresses index.html (history fallback included) and keeps it no-cache', async () => {
    for (const p of ['/', '/user/pay?device_id=1&venue_id=1', '/merchant/devices']) {
      const res = await get(p, 'br');
      expect(res.headers.get('Content-Encoding')).toBe('br');
      expect(res.headers.get('Cache-Control')).toBe('no-cache');
      expect(zlib.brotliDecompressSync(Buffer.from(await res.arrayBuffer())).toString()).toBe(html);
    }
  });
});

describe('JSON answers', () => {
  it('compresses answers over 1 KB with the accepted encoding; the bytes decode to the same JSON', async () => {
    const token = await t.login('admin');
    const auth = { Authorization: `Bearer ${token}` };
    const plain = await t.request('/backend/admin/permissions', { headers: auth });
    const text = await plain.text();
    expect(Buffer.byteLength(text)).toBeGreaterThan(1024);
    expect(plain.headers.get('Content-Encoding')).toBeNull();
    expect(plain.headers.get('Vary')).toMatch(/Accept-Encoding/);

    const br = await t.request('/backend/admin/permissions', {
      headers: { ...auth, 'Accept-Encoding': 'gzip, br' },
    });
    expect(br.status).toBe(200);
    expect(br.headers.get('Content-Encoding')).toBe('br');
    expect(br.headers.get('Content-Type')).toMatch(/application\/json/);
    expect(br.headers.get('Cache-Control')).toBe('no-store');
    expect(zlib.brotliDecompressSync(Buffer.from(await br.arrayBuffer())).toString()).toBe(text);

    const gz = await t.request('/backend/admin/permissions', {
      headers: { ...auth, 'Accept-Encoding': 'gzip' },
    });
    expect(gz.headers.get('Content-Encoding')).toBe('gzip');
    expect(JSON.parse(zlib.gunzipSync(Buffer.from(await gz.arrayBuffer())).toString())).toEqual(
      JSON.parse(text),
    );
  });

  it('leaves small answers and errors as they are, keeping their status', async () => {
    const health = await t.request('/backend/health', { headers: { 'Accept-Encoding': 'br' } });
    expect(health.headers.get('Content-Encoding')).toBeNull();
    expect(health.headers.get('Vary')).toMatch(/Accept-Encoding/);
    expect((await health.json()).ok).toBe(true);
    const missing = await t.request('/backend/nope', { headers: { 'Accept-Encoding': 'br' } });
    expect(missing.status).toBe(404);
    expect((await missing.json()).code).toBe('NOT_FOUND');
  });
});

describe('JSON answers made by c.json and as Response objects of their own', () => {
  const big = { rows: Array.from({ length: 200 }, (_, i) => ({ i, name: `扫码即用 ${i}` })) };
  const mini = new Hono();
  mini.use('*', securityHeaders());
  mini.use('*', compressJson());
  mini.get('/made', (c) => c.json(big, 201, { 'X-Made': 'yes' }));
  mini.get(
    '/own',
    () => new Response(JSON.stringify(big), { headers: { 'Content-Type': 'application/json' } }),
  );
  mini.get('/small', (c) => c.json({ ok: true }, 202));
  mini.get(
    '/small-own',
    () => new Response('{"ok":true}', { headers: { 'Content-Type': 'application/json' } }),
  );
  const get = (p: string) => mini.request(p, { headers: { 'Accept-Encoding': 'br' } });

  it('compresses both ways alike, keeping status, headers and the security headers', async () => {
    for (const p of ['/made', '/own']) {
      const res = await get(p);
      expect(res.headers.get('Content-Encoding'), p).toBe('br');
      expect(res.headers.get('Vary'), p).toBe('Accept-Encoding');
      expect(res.headers.get('X-Content-Type-Options'), p).toBe('nosniff');
      expect(res.headers.get('Content-Type'), p).toMatch(/^application\/json/);
      expect(
        JSON.parse(zlib.brotliDecompressSync(Buffer.from(await res.arrayBuffer())).toString()),
        p,
      ).toEqual(big);
    }
    const made = await get('/made');
    expect(made.status).toBe(201);
    expect(made.headers.get('X-Made')).toBe('yes');
  });

  it('sends small answers as they are, with Vary, both ways', async () => {
    for (const [p, status] of [
      ['/small', 202],
      ['/small-own', 200],
    ] as const) {
      const res = await get(p);
      expect(res.status, p).toBe(status);
      expect(res.headers.get('Content-Encoding'), p).toBeNull();
      expect(res.headers.get('Vary'), p).toBe('Accept-Encoding');
      expect(res.headers.get('X-Frame-Options'), p).toBe('DENY');
      expect(await res.json(), p).toEqual({ ok: true });
    }
  });
});
