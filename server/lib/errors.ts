/**
 * The one error shape of the API (docs/decisions.md D6): HTTP status + `{ code, message, details? }`, message in Chinese.
 * Handlers throw HttpError; `errorHandler` renders it. Anything else is a bug: logged, answered 500 without details.
 */
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ZodError } from 'zod';

export class HttpError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
    /** Extra response headers (e.g. Retry-After). */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const badRequest = (
  message = '请求参数有误',
  details?: Record<string, unknown>,
  code = 'BAD_REQUEST',
) => new HttpError(400, code, message, details);
export const validationFailed = (details: Record<string, unknown>, message = '请求参数有误') =>
  new HttpError(400, 'VALIDATION_FAILED', message, details);
export const unauthorized = (message = '请先登录', code = 'UNAUTHORIZED') =>
  new HttpError(401, code, message);
export const forbidden = (message = '没有权限执行此操作', code = 'FORBIDDEN') =>
  new HttpError(403, code, message);
export const notFound = (message = '资源不存在', code = 'NOT_FOUND') => new HttpError(404, code, message);
export const conflict = (code: string, message: string, details?: Record<string, unknown>) =>
  new HttpError(409, code, message, details);
export const payloadTooLarge = (message = '请求内容过大') => new HttpError(413, 'PAYLOAD_TOO_LARGE', message);
export const tooManyRequests = (message: string, retryAfterSeconds: number) =>
  new HttpError(
    429,
    'TOO_MANY_ATTEMPTS',
    message,
    { retry_after_seconds: retryAfterSeconds },
    {
      'Retry-After': String(retryAfterSeconds),
    },
  );

export interface ErrorBody {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

/** Renders an error; unknown errors are logged with the request id and hidden from the caller. */
export function renderError(err: unknown, c: Context): Response {
  // An error answered before the body was read leaves unread bytes on a keep-alive socket, which the next request
  // on it would be parsed from: close the connection instead.
  const len = c.req.header('content-length');
  if ((len !== undefined && len !== '0') || c.req.header('transfer-encoding') !== undefined) {
    c.header('Connection', 'close');
  }
  if (err instanceof HttpError) {
    const body: ErrorBody = { code: err.code, message: err.message };
    if (err.details) body.details = err.details;
    return c.json(body, err.status, err.headers);
  }
  if (err instanceof HTTPException) {
    // Hono's own (e.g. malformed request it rejected before us): keep the status, our shape.
    const status = err.status;
    const code = status === 413 ? 'PAYLOAD_TOO_LARGE' : status === 401 ? 'UNAUTHORIZED' : 'BAD_REQUEST';
    const message = status === 413 ? '请求内容过大' : status === 401 ? '请先登录' : '请求有误';
    return c.json({ code, message } satisfies ErrorBody, status);
  }
  // Safety nets for routes that read input without parseJson/validate: `c.req.json()` on a malformed body throws
  // SyntaxError, `Schema.parse(...)` throws ZodError. Both are bad input (400), never a 500.
  if (err instanceof SyntaxError && /JSON/i.test(err.message)) {
    return c.json({ code: 'BAD_JSON', message: '请求内容不是合法的 JSON' } satisfies ErrorBody, 400);
  }
  // `c.req.query()` / `c.req.param()` decode percent escapes; a malformed one (`%E0%A4%A`) throws URIError.
  if (err instanceof URIError) {
    return c.json({ code: 'BAD_ENCODING', message: '请求地址的编码有误' } satisfies ErrorBody, 400);
  }
  // A form or multipart body the platform's parser cannot read (no boundary, broken parts).
  if (err instanceof TypeError && /FormData|multipart|boundary|body/i.test(err.message)) {
    return c.json({ code: 'BAD_BODY', message: '请求内容格式有误' } satisfies ErrorBody, 400);
  }
  if (err instanceof ZodError) {
    const details: Record<string, string> = {};
    for (const issue of err.issues) details[issue.path.map(String).join('.') || '_root'] ??= issue.message;
    return c.json({ code: 'VALIDATION_FAILED', message: '请求参数有误', details } satisfies ErrorBody, 400);
  }
  const rid = (c.get('request_id' as never) as string | undefined) ?? '-';
  console.error(`[${rid}] unexpected error on ${c.req.method} ${c.req.path}:`, err);
  return c.json({ code: 'INTERNAL', message: '服务器内部错误' } satisfies ErrorBody, 500);
}
