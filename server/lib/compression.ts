/**
 * Compression for what the server sends: the client's files are compressed once at build time (brotli and gzip,
 * written beside each file by `precompressDir`) and picked by `Accept-Encoding`; JSON answers over 1 KB are
 * compressed per request. Phones on 4G download about a third of the raw bytes (docs/performance.md).
 */
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { MiddlewareHandler } from 'hono';

export type Encoding = 'br' | 'gzip';

/** File extensions worth compressing (text); images and fonts are compressed already. */
const COMPRESSIBLE_FILE = /\.(?:js|mjs|css|html|svg|json|txt|webmanifest|map)$/i;
export const isCompressibleFile = (name: string) => COMPRESSIBLE_FILE.test(name);

/** Below this, compression saves less than the headers it adds. */
export const COMPRESS_THRESHOLD_BYTES = 1024;

/**
 * The best encoding the client accepts among `offered` (brotli before gzip), honouring q-values (`q=0` refuses);
 * undefined means identity.
 */
export function pickEncoding(
  acceptEncoding: string | undefined,
  offered: readonly Encoding[] = ['br', 'gzip'],
) {
  if (!acceptEncoding) return undefined;
  const q = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const value = qParam ? Number(qParam.slice(2)) : 1;
    q.set(name, Number.isFinite(value) ? value : 0);
  }
  const wildcard = q.get('*');
  let best: { enc: Encoding; q: number } | undefined;
  for (const enc of offered) {
    const v = q.get(enc) ?? wildcard ?? 0;
    if (v > 0 && (!best || v > best.q)) best = { enc, q: v };
  }
  return best?.enc;
}

/** Adds `Accept-Encoding` to a `Vary` header value once. */
export function withVary(current: string | null): string {
  if (!current) return 'Accept-Encoding';
  if (current === '*' || /(?:^|,)\s*accept-encoding\s*(?:,|$)/i.test(current)) return current;
  return `${current}, Accept-Encoding`;
}

/**
 * Writes `<file>.br` (quality 11) and `<file>.gz` (level 9) beside every compressible file over the threshold under
 * `dir`; the server serves them by `Accept-Encoding`. Returns what it wrote, for the build log.
 */
export function precompressDir(dir: string): { file: string; raw: number; br: number; gz: number }[] {
  const written: { file: string; raw: number; br: number; gz: number }[] = [];
  const walk = (d: string) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (isCompressibleFile(entry.name)) {
        const raw = fs.readFileSync(p);
        if (raw.length < COMPRESS_THRESHOLD_BYTES) continue;
        const br = zlib.brotliCompressSync(raw, {
          params: {
            [zlib.constants.BROTLI_PARAM_QUALITY]: 11,
            [zlib.constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
          },
        });
        const gz = zlib.gzipSync(raw, { level: 9 });
        fs.writeFileSync(`${p}.br`, br);
        fs.writeFileSync(`${p}.gz`, gz);
        written.push({ file: path.relative(dir, p), raw: raw.length, br: br.length, gz: gz.length });
      }
    }
  };
  walk(dir);
  return written;
}

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/**
 * JSON answers over `threshold` bytes go out compressed (brotli at a fast level, or gzip) when the client accepts
 * it; every JSON answer says `Vary: Accept-Encoding`. Streams of other types (CSV exports) pass untouched.
 * Compression runs on libuv's thread pool, off the event loop.
 */
export function compressJson(threshold = COMPRESS_THRESHOLD_BYTES): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const res = c.res;
    const type = res.headers.get('Content-Type') ?? '';
    if (!/^application\/(?:[\w.+-]+\+)?json\b/i.test(type) || !res.body) return;
    if (res.headers.has('Content-Encoding') || c.req.method === 'HEAD') return;
    res.headers.set('Vary', withVary(res.headers.get('Vary')));
    const enc = pickEncoding(c.req.header('Accept-Encoding'));
    if (!enc) return;
    const raw = Buffer.from(await res.arrayBuffer());
    let body: Uint8Array = raw;
    if (raw.length >= threshold) {
      body =
        enc === 'br'
          ? await brotli(raw, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } })
          : await gzip(raw, { level: 6 });
    }
    const headers = new Headers(res.headers);
    headers.delete('Content-Length');
    if (body !== raw) headers.set('Content-Encoding', enc);
    c.res = undefined as unknown as Response;
    c.res = new Response(new Uint8Array(body), { status: res.status, headers });
  };
}
