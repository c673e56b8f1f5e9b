/**
 * `/user/pay` gets its own page (scripts/pay-html.vite-plugin.ts): the frame in `#root`, the frame's CSS inlined
 * (rules inside `:where()` included), and nothing loaded before the first frame but the HTML; the server sends it
 * for `/user/pay` only, and the CSP admits its inline script by hash.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payHtml } from '../../../scripts/pay-html.vite-plugin';
import { PRELOAD_GLOBAL } from '../../../src/http/preload';
import { createTestApp, type TestApp } from '../test-app';

const CSS =
  '@layer base{body{margin:0}}.btn{padding:4px}.unused-class{color:red}' +
  ':where(.space-y-4>:not(:last-child)){margin-block-start:1rem}:where(.never-used>*){color:blue}';
const INDEX = `<!doctype html><html><head><script>window.old = 1;</script>
<script type="module" crossorigin src="/assets/index-a1.js"></script>
<link rel="modulepreload" crossorigin href="/assets/react-b2.js">
<link rel="stylesheet" crossorigin href="/assets/index-c3.css">
</head><body><div id="root"></div>
<script>(function(){window.${PRELOAD_GLOBAL}={}})();</script></body></html>`;

let dist: string;
let html: string;
let t: TestApp;
beforeAll(async () => {
  dist = fs.mkdtempSync(path.join(os.tmpdir(), 'scango-pay-html-'));
  fs.mkdirSync(path.join(dist, 'assets'));
  fs.writeFileSync(path.join(dist, 'assets', 'index-c3.css'), CSS);
  html = await payHtml(INDEX, dist);
  fs.writeFileSync(path.join(dist, 'index.html'), INDEX);
  fs.writeFileSync(path.join(dist, 'pay.html'), html);
  t = await createTestApp({ env: { NODE_ENV: 'production', SERVE_CLIENT: true }, deps: { clientDir: dist } });
});
afterAll(async () => {
  await t?.close();
  fs.rmSync(dist, { recursive: true, force: true });
});

const inlineScripts = (h: string) => [...h.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);

describe('pay.html', () => {
  it('carries the frame and the CSS it uses, inlined, :where() rules included', () => {
    expect(html).toContain('data-screen="user-pay-shell"');
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] ?? '';
    expect(style).toContain('.btn{padding:4px}');
    expect(style).toContain(':where(.space-y-4>:not(:last-child))');
    expect(style).not.toContain('unused-class');
    expect(style).not.toContain('never-used');
  });

  it('requests nothing but itself before the first frame; one script loads the rest after it', () => {
    expect(html).not.toMatch(/<link rel="(stylesheet|modulepreload)"/);
    expect(html).not.toMatch(/<script[^>]*\bsrc=/);
    const scripts = inlineScripts(html);
    expect(scripts).toHaveLength(2);
    const loader = scripts[1]!;
    expect(loader).toContain('requestAnimationFrame');
    for (const f of ['/assets/index-c3.css', '/assets/index-a1.js', '/assets/react-b2.js', PRELOAD_GLOBAL])
      expect(loader).toContain(f);
  });

  it('is what the server sends for /user/pay, with its scripts in the CSP; other pages get index.html', async () => {
    const pay = await t.app.request('/user/pay?device_id=1&venue_id=1');
    expect(pay.status).toBe(200);
    expect(pay.headers.get('cache-control')).toBe('no-cache');
    expect(await pay.text()).toBe(html);
    const csp = pay.headers.get('content-security-policy') ?? '';
    for (const s of [...inlineScripts(html), ...inlineScripts(INDEX)])
      expect(csp).toContain(`'sha256-${createHash('sha256').update(s).digest('base64')}'`);
    for (const other of ['/user/using', '/admin-login', '/user/pay/x']) {
      const res = await t.app.request(other);
      expect(await res.text(), other).toBe(INDEX);
    }
  });
});
