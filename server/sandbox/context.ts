/**
 * What the sandbox routers share: the DB (all sandbox state lives there), the credentials, the clock, the public
 * URL (its host is the sandbox's 网页授权域名) and the notification sender.
 */
import type { Db } from '../db/client';
import type { SandboxKeys } from './keys';
import type { NotificationSender } from './notifier';

export interface SandboxContext {
  db: Db;
  keys: SandboxKeys;
  now: () => number;
  /** The public origin, read on every use (a server on port 0 learns its URL only after listening). */
  publicUrl: () => string;
  /** Hostnames accepted in redirect_uri (the 网页授权域名): the public URL's host and configured extras. */
  allowedHosts: () => string[];
  sender: NotificationSender;
}

/** Minimal HTML page (the sandbox pages are plain server-rendered forms: no script, CSP-friendly). */
export function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="zh-CN"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>
body{margin:0;font-family:-apple-system,BlinkMacSystemFont,"PingFang SC","Microsoft YaHei",sans-serif;background:#ededed;color:#111}
main{max-width:480px;margin:0 auto;padding:24px 16px}
.card{background:#fff;border-radius:12px;padding:20px;margin-bottom:16px}
h1{font-size:18px;margin:0 0 12px}
.muted{color:#888;font-size:13px}
.amount{font-size:36px;font-weight:600;text-align:center;margin:12px 0}
label{display:block;font-size:14px;margin:12px 0 4px}
input[type=text]{width:100%;box-sizing:border-box;padding:10px;border:1px solid #ddd;border-radius:8px;font-size:16px}
button,.btn{display:block;width:100%;box-sizing:border-box;padding:12px;border:0;border-radius:8px;font-size:17px;margin-top:12px;text-align:center;text-decoration:none}
.primary{background:#07c160;color:#fff}
.secondary{background:#f2f2f2;color:#07c160}
.user{background:#f7f7f7;color:#111;text-align:left}
.badge{display:inline-block;background:#fa9d3b;color:#fff;border-radius:4px;padding:1px 6px;font-size:12px}
.error{color:#fa5151}
</style></head>
<body><main>${body}</main></body></html>`;
}

export function esc(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** The one return-path rule (server/lib/return-path.ts): a same-origin relative path. */
export { isSafeReturnPath } from '../lib/return-path';

/** Appends query parameters to a path that may already have some. */
export function withQuery(path: string, params: Record<string, string>): string {
  const hashAt = path.indexOf('#');
  const base = hashAt >= 0 ? path.slice(0, hashAt) : path;
  const hash = hashAt >= 0 ? path.slice(hashAt) : '';
  const q = new URLSearchParams(params).toString();
  return `${base}${base.includes('?') ? '&' : '?'}${q}${hash}`;
}
