/**
 * Pieces of the server test app (tests/server/test-app.ts): serving it on loopback, the recording notification
 * receiver, member sign-in through the real sandbox OAuth flow, and request-init helpers.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import type { Mount } from '../../server/context';

/** Serves `fetch` on 127.0.0.1 at a free port. */
export async function listenOnLoopback(
  fetch: (req: Request) => Response | Promise<Response>,
): Promise<{ origin: string; close(): Promise<void> }> {
  const server = serve({ fetch, port: 0, hostname: '127.0.0.1' });
  if (!server.listening) await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface Received {
  at: number;
  body: string;
  headers: Headers;
}

/** The recording receiver's face on the test app (fields the tests read and set). */
export interface Receiver {
  /** Notifications that reached the receiver. */
  received: Received[];
  /** Decides the receiver's answer for each delivery (default 200). */
  receiverStatus: (n: Received, index: number) => number;
  /** The receiver answers this late (ms). */
  receiverDelayMs: number;
}

/**
 * A notification receiver mounted at `<base>/notify`: records every delivery and answers as the test says
 * (`receiverStatus`, `receiverDelayMs`, read from `attach`ed object at each delivery).
 */
export function recordingReceiver(base: string) {
  let target: Receiver = { received: [], receiverStatus: () => 200, receiverDelayMs: 0 };
  const routes = new Hono();
  routes.post('/notify', async (c) => {
    const n = { at: Date.now(), body: await c.req.text(), headers: c.req.raw.headers };
    const status = target.receiverStatus(n, target.received.length);
    target.received.push(n);
    if (target.receiverDelayMs > 0) await new Promise((r) => setTimeout(r, target.receiverDelayMs));
    return status === 204
      ? c.body(null, 204)
      : c.json(status < 300 ? {} : { code: 'FAIL', message: '失败' }, status as 200);
  });
  const mount: Mount = { path: new URL(base).pathname, routes };
  return {
    url: `${base}/notify`,
    mount,
    /** Makes `obj` the receiver's state (its fields are read at each delivery). */
    attach<T extends object>(obj: T): T & Receiver {
      target = Object.assign(obj, target);
      return target as T & Receiver;
    },
  };
}

type Requester = { request: (path: string, init?: RequestInit) => Response | Promise<Response> };

/** Path + query of an absolute or relative URL, without the `#wechat_redirect` fragment. */
export function local(url: string): string {
  const u = new URL(url, 'http://localhost');
  return `${u.pathname}${u.search}`;
}

/**
 * Signs `openid` in through the sandbox and returns the Cookie header value (`sid=...`): `/backend/wechat/authorize`
 * with `sandbox_openid` -> the sandbox's authorize page (approves at once) -> `/backend/wechat/callback`. Throws
 * with the step and status when any hop does not redirect as the protocol says.
 */
export async function signInMember(
  app: Requester,
  openid: string,
  redirect = '/user/profile',
): Promise<string> {
  const start = await app.request(
    `/backend/wechat/authorize?redirect=${encodeURIComponent(redirect)}&sandbox_openid=${encodeURIComponent(openid)}`,
  );
  if (start.status !== 302) throw new Error(`authorize: ${start.status} ${await start.text()}`);
  const toWechat = start.headers.get('location')!;
  const approved = await app.request(local(toWechat));
  if (approved.status !== 302)
    throw new Error(`sandbox authorize: ${approved.status} ${await approved.text()}`);
  const callback = await app.request(local(approved.headers.get('location')!), browserOf(start));
  if (callback.status !== 302) throw new Error(`callback: ${callback.status} ${await callback.text()}`);
  const sid = /(?:^|,\s*)sid=([^;]+)/.exec(callback.headers.get('set-cookie') ?? '');
  if (!sid) throw new Error('callback set no sid cookie');
  return `sid=${sid[1]}`;
}

/**
 * The starting browser's `wx_oauth` cookie from an authorize answer, as a request init: the callback must carry it
 * (the state is bound to the browser that started the sign-in).
 */
export function browserOf(authorize: Response): RequestInit {
  const m = /(?:^|,\s*)wx_oauth=([^;]+)/.exec(authorize.headers.get('set-cookie') ?? '');
  if (!m) throw new Error('authorize set no wx_oauth cookie');
  return { headers: { cookie: `wx_oauth=${m[1]}` } };
}

export const bearer = (token: string, extra: Record<string, string> = {}): RequestInit => ({
  headers: { authorization: `Bearer ${token}`, ...extra },
});

export const postJson = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

/** `init` sent as the staff account of `token` (its headers kept). */
export const asStaff = (token: string, init: RequestInit = {}): RequestInit => ({
  ...init,
  headers: {
    ...(init.headers as Record<string, string>),
    ...(bearer(token).headers as Record<string, string>),
  },
});

/** A JSON body sent with `method` (PUT, DELETE, ...). */
export const sendJson = (method: string, body: unknown): RequestInit => ({ ...postJson(body), method });

export const withCookie = (cookie: string, init: RequestInit = {}): RequestInit => ({
  ...init,
  headers: { ...(init.headers as Record<string, string> | undefined), cookie },
});
