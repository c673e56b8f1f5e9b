/**
 * Serves the built client from `dist/`: files as they are, hashed `/assets/*` cached for a year (immutable), and
 * `index.html` for every other GET that is not an API path (history fallback), always `Cache-Control: no-cache`
 * because WeChat's browser caches pages hard and must pick up a new build at once. Text files go out as their
 * build-time brotli or gzip twin (`<file>.br`, `<file>.gz`) when the browser accepts it, with `Vary: Accept-Encoding`.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Context } from 'hono';
import { getMimeType } from 'hono/utils/mime';
import { isCompressibleFile, pickEncoding, type Encoding } from './compression';

export const DIST_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist');

async function readFileIfAny(file: string): Promise<Buffer | undefined> {
  try {
    const st = await fs.stat(file);
    if (!st.isFile()) return undefined;
    return await fs.readFile(file);
  } catch {
    return undefined;
  }
}

function toArrayBuffer(b: Buffer): ArrayBuffer {
  return new Uint8Array(b).buffer;
}

const SUFFIX: Record<Encoding, string> = { br: '.br', gzip: '.gz' };

/** The file as the browser best accepts it: its precompressed twin if there is one, else the file itself. */
async function sendFile(
  c: Context,
  file: string,
  raw: Buffer,
  headers: Record<string, string>,
): Promise<Response> {
  const enc = pickEncoding(c.req.header('Accept-Encoding'));
  const twin = enc ? await readFileIfAny(file + SUFFIX[enc]) : undefined;
  const vary = isCompressibleFile(file) ? { Vary: 'Accept-Encoding' } : undefined;
  if (enc && twin) {
    return c.body(toArrayBuffer(twin), 200, { ...headers, ...vary, 'Content-Encoding': enc });
  }
  return c.body(toArrayBuffer(raw), 200, { ...headers, ...vary });
}

/** Handles GET/HEAD for non-API paths; returns undefined when the request is not ours (let it 404). */
export async function serveClient(c: Context, distDir = DIST_DIR): Promise<Response | undefined> {
  if (c.req.method !== 'GET' && c.req.method !== 'HEAD') return undefined;
  const reqPath = c.req.path;
  if (reqPath === '/backend' || reqPath.startsWith('/backend/')) return undefined;
  let rel: string;
  try {
    rel = decodeURIComponent(reqPath);
  } catch {
    return undefined;
  }
  const file = path.resolve(distDir, '.' + path.posix.normalize('/' + rel));
  // Never leave dist/ (path traversal), never serve dotfiles.
  if (
    (file !== distDir && !file.startsWith(distDir + path.sep)) ||
    /(^|[\\/])\./.test(path.relative(distDir, file))
  ) {
    return undefined;
  }
  const isIndex = reqPath === '/' || reqPath.endsWith('/index.html');
  const body = isIndex ? undefined : await readFileIfAny(file);
  if (body) {
    const type = getMimeType(file) ?? 'application/octet-stream';
    const cache = reqPath.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache';
    return sendFile(c, file, body, { 'Content-Type': type, 'Cache-Control': cache });
  }
  // A missing hashed asset is a real 404 (an old page asking for a file of a previous build), not the app shell.
  if (reqPath.startsWith('/assets/') || (path.extname(reqPath) !== '' && !isIndex)) return undefined;
  // `/user/pay` gets its own page with the frame and its CSS inlined (scripts/pay-html.vite-plugin.ts).
  const payFile = reqPath === '/user/pay' ? path.join(distDir, 'pay.html') : undefined;
  const pay = payFile ? await readFileIfAny(payFile) : undefined;
  const indexFile = pay ? payFile! : path.join(distDir, 'index.html');
  const index = pay ?? (await readFileIfAny(indexFile));
  if (!index) return undefined;
  return sendFile(c, indexFile, index, {
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-cache',
  });
}

let hashCache: { key: string; hashes: string[] } | undefined;

/**
 * CSP sources (`'sha256-…'`) for the inline scripts of the built index.html and pay.html (the old-browser notice
 * must run before the bundle), so the production CSP can stay `script-src 'self'` without 'unsafe-inline'. Cached
 * per build.
 */
export function inlineScriptHashes(distDir = DIST_DIR): string[] {
  const files = ['index.html', 'pay.html'].map((f) => path.join(distDir, f));
  const stamps = files.map((f) => {
    try {
      return statSync(f).mtimeMs;
    } catch {
      return undefined;
    }
  });
  if (stamps[0] === undefined) return [];
  const key = files.map((f, i) => `${f}@${stamps[i]}`).join('|');
  if (hashCache?.key === key) return hashCache.hashes;
  const hashes = new Set<string>();
  files.forEach((file, i) => {
    if (stamps[i] === undefined) return;
    const html = readFileSync(file, 'utf8');
    for (const m of html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/gi)) {
      hashes.add(
        `'sha256-${createHash('sha256')
          .update(m[1] ?? '', 'utf8')
          .digest('base64')}'`,
      );
    }
  });
  hashCache = { key, hashes: [...hashes] };
  return hashCache.hashes;
}
