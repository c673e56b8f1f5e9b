/**
 * The list format of docs/decisions.md D6: `?page=&page_size=` in, `{ items, total, page, page_size }` out. Bad paging
 * parameters are a 400 like any other bad input.
 */
import type { Context } from 'hono';
import { PageQuerySchema, type Page, type PageQuery } from '../../src/domain/api';
import { parseQuery } from './validate';

/** `?page=&page_size=` (defaults 1 and 20, page_size at most 100). */
export function pageQuery(c: Context): PageQuery {
  return parseQuery(c, PageQuerySchema);
}

/** Rows to skip for a page: use with `.limit(q.page_size).offset(offsetOf(q))`. */
export function offsetOf(q: PageQuery): number {
  return (q.page - 1) * q.page_size;
}

export function pageOf<T>(items: T[], total: number, q: PageQuery): Page<T> {
  return { items, total: Number(total), page: q.page, page_size: q.page_size };
}
