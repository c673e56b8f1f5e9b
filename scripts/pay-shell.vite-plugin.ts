/**
 * Vite plugin: writes the pay page's early script into index.html, right after `#root`. On `/user/pay` with its
 * two ids it (1) preloads the pay route's chunks, (2) starts the page's four GETs with the headers the HTTP client
 * would send, leaving them for the client (`src/http/preload.ts`), and (3) paints the static frame
 * (`src/ui/user/pay-shell.ts`) unless the page came with it (`dist/pay.html`, scripts/pay-html.vite-plugin.ts), all
 * before the bundle has loaded. Elsewhere it does nothing. The production CSP
 * admits it by hash (`server/lib/static.ts`).
 */
import type { Plugin, Rollup } from 'vite';
import { PRELOAD_GLOBAL } from '../src/http/preload';
import { PAY_SHELL_HTML } from '../src/ui/user/pay-shell';

const PAY_SCREEN = '/src/screens/user/pay.tsx';

/** The pay screen chunk and its static imports, minus what the entry already loads (Vite preloads those). */
export function payChunkFiles(bundle: Rollup.OutputBundle): string[] {
  const chunks = Object.values(bundle).filter((c): c is Rollup.OutputChunk => c.type === 'chunk');
  const byFile = new Map(chunks.map((c) => [c.fileName, c]));
  const closure = (start: Rollup.OutputChunk | undefined) => {
    const seen = new Set<string>();
    const visit = (c: Rollup.OutputChunk | undefined) => {
      if (!c || seen.has(c.fileName)) return;
      seen.add(c.fileName);
      c.imports.forEach((f) => visit(byFile.get(f)));
    };
    visit(start);
    return seen;
  };
  const entry = closure(chunks.find((c) => c.isEntry));
  const pay = closure(chunks.find((c) => c.facadeModuleId?.endsWith(PAY_SCREEN)));
  return [...pay].filter((f) => !entry.has(f)).map((f) => `/${f}`);
}

/** The inline script; ES5 so that it also runs on the old kernels the notice in index.html is for. */
export function payEarlyScript(preloadFiles: string[]): string {
  return `(function(){var l=location,q=new URLSearchParams(l.search),d=q.get('device_id'),v=q.get('venue_id'),n=/^[1-9][0-9]{0,9}$/;
if(l.pathname!=='/user/pay'||!n.test(d)||!n.test(v))return;
${JSON.stringify(preloadFiles)}.forEach(function(f){var k=document.createElement('link');k.rel='modulepreload';k.href=f;document.head.appendChild(k)});
var h={Accept:'application/json','Content-Type':'application/json'},r=null,u=null,ok=true;
try{r=localStorage.getItem('user');if(r===null)r=sessionStorage.getItem('user')}catch(e){}
if(r!==null){try{u=JSON.parse(r);if(!u||typeof u!=='object'||Array.isArray(u))throw 0}catch(e){ok=false;u=null}}
if(ok){h['X-UserLevel']=String(u&&typeof u.level==='number'?u.level:1);if(u&&u.merchant_id!=null&&String(u.merchant_id)!=='')h['X-MerchantID']=String(u.merchant_id)}
var p={};function g(s){var x=fetch('/backend'+s,{headers:h,credentials:'same-origin'});x['catch'](function(){});p['/backend'+s]=x}
g('/api/devices/'+d);g('/api/venues/'+v);g('/api/venue-service-prices?venue_id='+v);g('/user/profile');
window.${PRELOAD_GLOBAL}=p;
var root=document.getElementById('root');if(root&&!root.firstChild)root.innerHTML=${JSON.stringify(PAY_SHELL_HTML)}})();`;
}

export function payShell(): Plugin {
  return {
    name: 'scango:pay-shell',
    transformIndexHtml: {
      order: 'post',
      handler(html, ctx) {
        const files = ctx.bundle ? payChunkFiles(ctx.bundle) : [];
        const tag = `<script>${payEarlyScript(files)}</script>`;
        if (!html.includes('<div id="root"></div>'))
          throw new Error('index.html has no <div id="root"></div>');
        return html.replace('<div id="root"></div>', `<div id="root"></div>\n    ${tag}`);
      },
    },
  };
}
