/**
 * Vite plugin: writes `dist/pay.html`, the page the server sends for `/user/pay` (`server/lib/static.ts`). It is
 * index.html changed so that the first paint needs nothing but the HTML (docs/performance.md):
 *
 * 1. the pay page's frame (`src/ui/user/pay-shell.ts`) is in `#root` already, not painted by a script;
 * 2. the CSS rules that frame uses are inlined in a `<style>` (found by `beasties` from the frame's markup);
 * 3. nothing else is requested before the first frame: one inline script then adds the full stylesheet, the
 *    entry's module preloads and index.html's early script (pay chunks, the four GETs), and the entry once the
 *    stylesheet is in.
 *
 * The inline script is admitted by the production CSP through its hash, like index.html's.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import Beasties from 'beasties';
import type { Plugin, Rollup } from 'vite';
import { PRELOAD_GLOBAL } from '../src/http/preload';
import { PAY_SHELL_HTML } from '../src/ui/user/pay-shell';

export const PAY_HTML = 'pay.html';

type Normalize = { normalizeCssSelector(sel: string): string };

/**
 * beasties drops every rule whose selector sits in `:where()` / `:is()` (it strips pseudo-classes with their
 * arguments), and Tailwind and daisyUI put many layout rules there (`:where(.space-y-4>:not(:last-child))`). Such a
 * rule is kept when any class it names is in the frame: a few rules too many cost bytes, a rule too few moves the
 * frame when the full stylesheet arrives.
 */
class FrameCss extends Beasties {
  normalizeCssSelector(sel: string): string {
    if (!/:(?:where|is)\(/.test(sel))
      return (Beasties.prototype as unknown as Normalize).normalizeCssSelector.call(this, sel);
    const classes = sel.match(/\.(?:\\.|[\w-])+/g);
    return classes ? [...new Set(classes)].join(',') : '*';
  }
}

/** What index.html loads, and how: the stylesheet, the entry module, the modules Vite preloads, the early script. */
interface Loads {
  css: string;
  entry: string;
  preloads: string[];
  early: string;
}

const STYLESHEET = /<link rel="stylesheet"[^>]*href="([^"]+\.css)"[^>]*>\s*/;
const ENTRY = /<script type="module"[^>]*src="([^"]+)"[^>]*><\/script>\s*/;
const PRELOAD = /<link rel="modulepreload"[^>]*href="([^"]+)"[^>]*>\s*/g;

/** Takes index.html's loads out of it: the page that is left loads nothing but itself. */
function takeLoads(html: string): { rest: string; loads: Loads } {
  const css = STYLESHEET.exec(html);
  const entry = ENTRY.exec(html);
  const early = [...html.matchAll(/<script>([\s\S]*?)<\/script>\s*/g)].find((m) =>
    m[1]!.includes(PRELOAD_GLOBAL),
  );
  if (!css || !entry || !early) throw new Error('index.html lacks its stylesheet, entry or early script');
  const preloads = [...html.matchAll(PRELOAD)].map((m) => m[1]!);
  const rest = [css[0], entry[0], early[0]].reduce((h, tag) => h.replace(tag, ''), html).replace(PRELOAD, '');
  return { rest, loads: { css: css[1]!, entry: entry[1]!, preloads, early: early[1]! } };
}

/**
 * The one script of pay.html. After the first frame (so that frame needs nothing but the HTML) it runs the early
 * script (the pay route's chunks and the four GETs); in a task of its own after that (two short tasks instead of
 * one long one: a phone's main thread is never blocked for long, docs/performance.md) it adds the full stylesheet
 * and preloads the entry and its modules, and once the stylesheet is in (or failed), the entry itself, so React
 * never renders unstyled. A hidden page, or a browser that gives no frame within a second, starts at once.
 */
export function payLoader({ css, entry, preloads, early }: Loads): string {
  return `(function(){var d=document,h=d.head,done=false;
function add(t,a){var e=d.createElement(t);for(var k in a)e[k]=a[k];h.appendChild(e);return e}
function go(){if(done)return;done=true;
${early}
setTimeout(function(){var s=add('link',{rel:'stylesheet',href:${JSON.stringify(css)}});
${JSON.stringify([entry, ...preloads])}.forEach(function(f){add('link',{rel:'modulepreload',href:f})});
var started=false;function main(){if(started)return;started=true;add('script',{type:'module',src:${JSON.stringify(entry)}})}
s.onload=main;s.onerror=main;setTimeout(main,3000)},0)}
if(d.visibilityState==='hidden'||!window.requestAnimationFrame)go();else{requestAnimationFrame(function(){setTimeout(go,0)});setTimeout(go,1000)}})();`;
}

/** index.html as built → pay.html; `distDir` is where the build's CSS is read from. */
export async function payHtml(indexHtml: string, distDir: string): Promise<string> {
  if (!indexHtml.includes('<div id="root"></div>'))
    throw new Error('index.html has no <div id="root"></div>');
  const { rest, loads } = takeLoads(indexHtml);
  const page = rest.replace(
    '<div id="root"></div>',
    `<div id="root">${PAY_SHELL_HTML}</div>\n    <script>${payLoader(loads)}</script>`,
  );
  const beasties = new FrameCss({
    path: distDir,
    publicPath: '/',
    additionalStylesheets: [loads.css],
    pruneSource: false,
    compress: true,
    fonts: false,
    keyframes: 'none',
    logLevel: 'warn',
  });
  return beasties.process(page);
}

export function payHtmlPlugin(): Plugin {
  let outDir = 'dist';
  return {
    name: 'scango:pay-html',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    // Sequential, so the file is there before the precompress plugin's closeBundle compresses the build.
    writeBundle: {
      sequential: true,
      async handler(_options, bundle: Rollup.OutputBundle) {
        const index = bundle['index.html'];
        if (!index || index.type !== 'asset') return;
        const html = await payHtml(String(index.source), outDir);
        await fs.writeFile(path.join(outDir, PAY_HTML), html);
      },
    },
  };
}
