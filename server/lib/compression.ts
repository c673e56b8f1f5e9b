/**
 * Compression for what the server sends: the client's files are compressed once at build time (brotli and gzip,
 * written beside each file by `precompressDir`) and picked by `Accept-Encoding`; JSON answers over 1 KB are
 * compressed per request. Phones on 4G download about a third of the raw bytes (docs/performance.md).
 */
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { Context, MiddlewareHandler } from 'hono';

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

const compressBytes = (raw: Buffer, enc: Encoding): Promise<Buffer> =>
  enc === 'br'
    ? brotli(raw, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } })
    : gzip(raw, { level: 6 });

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\b/i;

/**
 * JSON answers over `threshold` bytes go out compressed (brotli at a fast level, or gzip) when the client accepts
 * it; every JSON answer says `Vary: Accept-Encoding`. Streams of other types (CSV exports) pass untouched.
 * Compression runs on libuv's thread pool, off the event loop.
 *
 * `c.json` is wrapped for the request: it sees the JSON text as it is made, so an answer under the threshold (most
 * of them: a pay, a notification) goes out as built, never read back or rebuilt (docs/performance.md, "Headers
 * before the answer"). A JSON answer made any other way is read back and handled the same.
 */
export function compressJson(threshold = COMPRESS_THRESHOLD_BYTES): MiddlewareHandler {
  return async (c, next) => {
    const enc = c.req.method === 'HEAD' ? undefined : pickEncoding(c.req.header('Accept-Encoding'));
    // The answer c.json made, its text, and the encoding to send it in when it is worth compressing.
    let made: { res: Response; text: string; enc: Encoding | undefined } | undefined;
    const body = c.body as (
      data: string,
      arg?: unknown,
      headers?: Record<string, string | string[]>,
    ) => Response;
    const json = (object: unknown, arg?: unknown, headers?: Record<string, string | string[]>) => {
      const text = JSON.stringify(object);
      // What hono's own c.json sends: this text, with `application/json` unless `headers` says otherwise.
      const res = body(text, arg, { 'Content-Type': 'application/json', ...headers });
      res.headers.set('Vary', withVary(res.headers.get('Vary')));
      made = { res, text, enc: Buffer.byteLength(text) >= threshold ? enc : undefined };
      return res;
    };
    c.json = json as unknown as typeof c.json;
    await next();
    if (made && c.res === made.res) {
      if (made.enc) replaceBody(c, made.res, await compressBytes(Buffer.from(made.text), made.enc), made.enc);
      return;
    }
    const res = c.res;
    const type = res.headers.get('Content-Type') ?? '';
    if (!JSON_TYPE.test(type) || !res.body) return;
    if (res.headers.has('Content-Encoding') || c.req.method === 'HEAD') return;
    res.headers.set('Vary', withVary(res.headers.get('Vary')));
    if (!enc) return;
    const raw = Buffer.from(await res.arrayBuffer());
    if (raw.length >= threshold) replaceBody(c, res, await compressBytes(raw, enc), enc);
    else replaceBody(c, res, raw, undefined);
  };
}

/** The answer `res` with `body` instead of its own (encoded as `enc`, when given). */
function replaceBody(c: Context, res: Response, body: Uint8Array, enc: Encoding | undefined) {
  const headers = new Headers(res.headers);
  headers.delete('Content-Length');
  if (enc) headers.set('Content-Encoding', enc);
  c.res = undefined as unknown as Response;
  c.res = new Response(new Uint8Array(body), { status: res.status, headers });
}
