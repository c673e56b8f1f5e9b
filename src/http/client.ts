/**
 * The one HTTP client (docs/decisions.md D1, D2): base `/backend`, JSON, 10 000 ms timeout,
 * the bearer and user headers, and the error catalogue. Storage, navigation and the session hook are configured
 * once at the edge with `configureHttp(...)` so tests hand in real Storage objects and a real server's fetch.
 *
 * Use `request<T>(path, opts)`: it resolves with the parsed body or rejects with a `ThrownRequestError` (the one client error, src/domain/outcome.ts).
 */
import { ofetch, type $Fetch, type FetchOptions } from 'ofetch';
import { DEFAULT_LEVEL } from '../domain/levels';
import { ThrownRequestError } from '../domain/outcome';
import { withPreload } from './preload';
import { browserStores, clearSession, readToken, readUser, type SessionStores } from './session-storage';

export const API_BASE = '/backend';
export const REQUEST_TIMEOUT_MS = 10_000;
/** docs/decisions.md D1, "JSON content type": the default headers of every request (axios-style defaults). */
export const DEFAULT_HEADERS: Readonly<Record<string, string>> = {
  Accept: 'application/json',
  'Content-Type': 'application/json',
};
export const WECHAT_AUTH_REQUIRED = 'WECHAT_AUTH_REQUIRED';
export const WECHAT_AUTH_MESSAGE = '需要微信授权';
/** The generic messages of docs/decisions.md D1 for failures that carry no server answer. */
export const GENERIC_MESSAGES = {
  network: 'Network Error',
  timeout: 'timeout exceeded',
  aborted: 'Request aborted',
} as const;

/** Pages from which a 401 does not navigate (docs/decisions.md D1). */
const NO_REDIRECT_PATHS = ['/admin-login', '/wechat-login'];

/** What the edge provides. Every field has a browser default. */
export interface HttpConfig {
  stores: SessionStores;
  /** Client-side navigation (wouter's `navigate` in the app). */
  navigate: (path: string) => void;
  /** The current path + query of the page, to decide whether a 401 redirects and where WeChat sign-in returns. */
  currentPath: () => string;
  /**
   * Called on a 401 outside the end-user paths, after both storages were cleared. The app wires it to the
   * session actor (`http.unauthorized`), which logs out and navigates. When absent, the client navigates itself.
   */
  onUnauthorized?: (() => void) | undefined;
  /** The fetch to use (a real server's in tests; the browser's by default). */
  fetch?: typeof globalThis.fetch | undefined;
  /** Base URL; `/backend` in the browser, an absolute `http://127.0.0.1:port/backend` in node tests. */
  baseURL: string;
  /** Where "logged" errors go. */
  log: (message: string, err?: unknown) => void;
}

function browserPath(): string {
  const loc = (globalThis as { location?: Location }).location;
  return loc ? loc.pathname + loc.search : '/';
}

function defaultConfig(): HttpConfig {
  return {
    stores: browserStores(),
    navigate: (path) => {
      const loc = (globalThis as { location?: Location }).location;
      if (loc) loc.assign(path);
    },
    currentPath: browserPath,
    onUnauthorized: undefined,
    fetch: undefined,
    baseURL: API_BASE,
    log: (message, err) => console.error(message, err),
  };
}

let config: HttpConfig = defaultConfig();
let instance: $Fetch = build(config);

/** Replaces parts of the configuration (the app's entry and tests call it once). Returns the full config. */
export function configureHttp(overrides: Partial<HttpConfig>): HttpConfig {
  config = { ...config, ...overrides };
  instance = build(config);
  return config;
}

/** Back to the browser defaults (tests). */
export function resetHttp(): void {
  config = defaultConfig();
  instance = build(config);
}

export function httpConfig(): Readonly<HttpConfig> {
  return config;
}

/** True for the end-user API (`/backend/user/...`): no bearer, and a 401 means WeChat sign-in (docs/decisions.md D2). */
export function isEndUserPath(url: string): boolean {
  return url.includes('/user/');
}

/** docs/decisions.md D1: no bearer on URLs containing `/user/` or `/api/`. */
export function carriesBearer(url: string): boolean {
  return !url.includes('/user/') && !url.includes('/api/');
}

/**
 * The headers the client puts on a request to `url` (docs/decisions.md D1): bearer (unless end-user/public),
 * `X-UserLevel` (stored level or 1) and `X-MerchantID` when the stored user has one; none of the user headers when
 * the stored user cannot be parsed (logged).
 */
export function headersFor(
  url: string,
  cfg: Pick<HttpConfig, 'stores' | 'log'> = config,
): Record<string, string> {
  const headers: Record<string, string> = {};
  const token = readToken(cfg.stores);
  if (token && carriesBearer(url)) headers.Authorization = `Bearer ${token}`;
  const { user, unreadable } = readUser(cfg.stores, cfg.log);
  if (!unreadable) {
    const level = typeof user?.level === 'number' ? user.level : DEFAULT_LEVEL;
    headers['X-UserLevel'] = String(level);
    const merchantId = user?.merchant_id;
    if (merchantId !== undefined && merchantId !== null && String(merchantId) !== '') {
      headers['X-MerchantID'] = String(merchantId);
    }
  }
  return headers;
}

function requestUrl(request: unknown): string {
  if (typeof request === 'string') return request;
  if (request instanceof URL) return request.href;
  if (request && typeof request === 'object' && 'url' in request) return String((request as Request).url);
  return '';
}

function build(cfg: HttpConfig): $Fetch {
  return ofetch.create(
    {
      baseURL: cfg.baseURL,
      timeout: REQUEST_TIMEOUT_MS,
      // A repeated POST could pay twice; callers retry explicitly (the request machine's `retry`).
      retry: false,
      headers: DEFAULT_HEADERS,
      onRequest(ctx) {
        // A form or file body sets its own type (with the multipart boundary); the JSON default would break it.
        const body: unknown = ctx.options.body;
        if (body instanceof FormData || body instanceof URLSearchParams || body instanceof Blob) {
          ctx.options.headers.delete('Content-Type');
        }
        const url = requestUrl(ctx.request);
        for (const [name, value] of Object.entries(headersFor(url, cfg))) {
          if (!ctx.options.headers.has(name)) ctx.options.headers.set(name, value);
        }
      },
    },
    { fetch: withPreload(cfg.fetch ?? ((input, init) => globalThis.fetch(input, init))) },
  );
}

/** docs/decisions.md D1, "401 elsewhere": clear both storages, log out, go to /admin-login unless already there. */
function handleStaffUnauthorized(): void {
  clearSession(config.stores);
  if (config.onUnauthorized) {
    config.onUnauthorized();
    return;
  }
  redirectToAdminLogin();
}

/** Navigates to /admin-login unless the page is /admin-login or /wechat-login. */
export function redirectToAdminLogin(): void {
  const path = config.currentPath().split('?')[0] ?? '';
  if (!NO_REDIRECT_PATHS.includes(path)) config.navigate('/admin-login');
}

/** Where an end user goes after a `WECHAT_AUTH_REQUIRED`: WeChat sign-in, returning to the current page. */
export function wechatLoginPath(returnTo: string = config.currentPath()): string {
  return `/wechat-login?redirect=${encodeURIComponent(returnTo)}`;
}

interface ErrorBody {
  code?: unknown;
  message?: unknown;
  details?: unknown;
}

function toRequestError(err: unknown, url: string): ThrownRequestError {
  const e = err as {
    name?: string;
    message?: string;
    response?: Response;
    status?: number;
    data?: unknown;
    cause?: { name?: string };
  };
  const status = e.response?.status ?? e.status;
  if (status) {
    const body = (e.data && typeof e.data === 'object' ? e.data : {}) as ErrorBody;
    return new ThrownRequestError({
      status,
      code: typeof body.code === 'string' ? body.code : `HTTP_${status}`,
      message: typeof body.message === 'string' ? body.message : `Request failed with status code ${status}`,
      details:
        body.details && typeof body.details === 'object'
          ? (body.details as Record<string, unknown>)
          : undefined,
      data: e.data,
      url,
    });
  }
  const name = e.cause?.name ?? e.name ?? '';
  const text = e.message ?? '';
  if (name === 'TimeoutError' || /timeout/i.test(text)) {
    return new ThrownRequestError({ status: 0, code: 'TIMEOUT', message: GENERIC_MESSAGES.timeout, url });
  }
  if (name === 'AbortError' || /abort/i.test(text)) {
    return new ThrownRequestError({ status: 0, code: 'ABORTED', message: GENERIC_MESSAGES.aborted, url });
  }
  return new ThrownRequestError({ status: 0, code: 'NETWORK_ERROR', message: GENERIC_MESSAGES.network, url });
}

export type RequestOptions = Omit<FetchOptions<'json'>, 'baseURL' | 'timeout' | 'retry' | 'responseType'>;

/**
 * Sends a request through the one client and applies the error catalogue:
 * - 404: rejected with the server's answer, nothing else happens;
 * - 401 on an end-user path: rejected as `WECHAT_AUTH_REQUIRED` / `需要微信授权`, the session untouched
 *   (the caller may go to `wechatLoginPath()`);
 * - 401 elsewhere: storages cleared, session logged out, `/admin-login` (unless there or on `/wechat-login`);
 * - anything else: logged and rejected (Network Error / timeout exceeded / Request aborted when no answer came).
 */
export async function request<T>(path: string, opts: RequestOptions = {}): Promise<T> {
  try {
    return (await instance<T>(path, opts as FetchOptions<'json'>)) as T;
  } catch (err) {
    const failure = toRequestError(err, path);
    if (failure.status === 404) throw failure;
    if (failure.status === 401) {
      if (isEndUserPath(path)) {
        throw new ThrownRequestError({
          status: 401,
          code: WECHAT_AUTH_REQUIRED,
          message: WECHAT_AUTH_MESSAGE,
          data: failure.data,
          url: path,
        });
      }
      handleStaffUnauthorized();
      throw failure;
    }
    config.log(`Request failed: ${path}`, failure);
    throw failure;
  }
}

/** Shorthands over `request`. */
export const http = {
  get: <T>(path: string, opts: RequestOptions = {}) => request<T>(path, { ...opts, method: 'GET' }),
  post: <T>(path: string, body?: unknown, opts: RequestOptions = {}) =>
    request<T>(path, { ...opts, method: 'POST', body: body as RequestOptions['body'] }),
  put: <T>(path: string, body?: unknown, opts: RequestOptions = {}) =>
    request<T>(path, { ...opts, method: 'PUT', body: body as RequestOptions['body'] }),
  patch: <T>(path: string, body?: unknown, opts: RequestOptions = {}) =>
    request<T>(path, { ...opts, method: 'PATCH', body: body as RequestOptions['body'] }),
  delete: <T>(path: string, opts: RequestOptions = {}) => request<T>(path, { ...opts, method: 'DELETE' }),
};
