/**
 * Request validation from the zod schemas in `src/domain` (the same ones the client forms use). Every failure is a
 * 4xx in our error shape: a body that is not declared `application/json` 415, malformed JSON 400 BAD_JSON, too big 413 PAYLOAD_TOO_LARGE, wrong fields 400
 * VALIDATION_FAILED with `details` keyed by field path. Nothing here can turn bad input into a 500.
 */
import type { Context } from 'hono';
import { z } from 'zod';
import { HttpError, badRequest, payloadTooLarge, validationFailed } from './errors';

// Zod's built-in messages in Chinese for the fields our schemas do not label themselves.
z.config(z.locales.zhCN());

/** Default ceiling for a JSON body; the app-wide body limit (app.ts) is larger to leave room for other uploads. */
export const JSON_BODY_LIMIT = 64 * 1024;

/** Turns zod issues into `{ "field.path": "message" }` (first message per field; `_root` for the body itself). */
export function issuesToDetails(error: z.ZodError): Record<string, string> {
  const details: Record<string, string> = {};
  for (const issue of error.issues) {
    const key = issue.path.length ? issue.path.map(String).join('.') : '_root';
    details[key] ??= issue.message;
  }
  return details;
}

/** Validates an already parsed value, or throws 400 VALIDATION_FAILED. */
export function validate<S extends z.ZodType>(
  schema: S,
  value: unknown,
  message = '请求参数有误',
): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw validationFailed(issuesToDetails(parsed.error), message);
  return parsed.data;
}

/** Reads the JSON body (bounded) and validates it. */
export async function parseJson<S extends z.ZodType>(
  c: Context,
  schema: S,
  opts: { limit?: number } = {},
): Promise<z.output<S>> {
  const limit = opts.limit ?? JSON_BODY_LIMIT;
  // A JSON endpoint reads JSON only: a `text/plain` or form body is what a cross-site form can send (CSRF).
  if (!/^application\/(?:[\w.+-]+\+)?json\b/i.test(c.req.header('content-type') ?? '')) {
    throw new HttpError(415, 'UNSUPPORTED_MEDIA_TYPE', '请求内容类型必须是 application/json');
  }
  const declared = Number(c.req.header('content-length') ?? '0');
  if (Number.isFinite(declared) && declared > limit) throw payloadTooLarge();
  let text: string;
  try {
    text = await c.req.text();
  } catch (err) {
    if (err instanceof HttpError) throw err;
    throw badRequest('无法读取请求内容', undefined, 'BAD_JSON');
  }
  if (Buffer.byteLength(text, 'utf8') > limit) throw payloadTooLarge();
  if (text.trim() === '') throw badRequest('请求内容不能为空', undefined, 'BAD_JSON');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest('请求内容不是合法的 JSON', undefined, 'BAD_JSON');
  }
  return validate(schema, value);
}

/** Validates the query string (first value of each key). */
export function parseQuery<S extends z.ZodType>(c: Context, schema: S): z.output<S> {
  return validate(schema, c.req.query(), '查询参数有误');
}

const PositiveId = z.coerce.number().int().positive().max(2_147_483_647);

/** A positive integer path parameter (`/things/:id`), or 400. */
export function parseParam(c: Context, name: string): number {
  const raw = c.req.param(name);
  if (raw === undefined || !/^\d{1,10}$/.test(raw)) {
    throw validationFailed({ [name]: '必须是正整数编号' }, '路径参数有误');
  }
  const parsed = PositiveId.safeParse(raw);
  if (!parsed.success) throw validationFailed({ [name]: '必须是正整数编号' }, '路径参数有误');
  return parsed.data;
}
