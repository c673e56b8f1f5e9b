/**
 * Typed endpoints of `/backend/reports/...` and `/backend/daily/...` over the one HTTP client, the filter options
 * (venues, merchants for the admin), and the CSV download: a streamed fetch that reports its progress.
 */
import type { Page } from '../domain/api';
import type { Merchant } from '../domain/merchants.schema';
import { ThrownRequestError } from '../domain/outcome';
import {
  CSV_ROWS_HEADER,
  type DailyKind,
  type ReportAnswers,
  type ReportKind,
} from '../domain/reports.schema';
import { headersFor, http, httpConfig } from './client';
import { queryString as query } from './query-string';
import { venuesApi } from './venues-api';

export interface Option {
  id: number;
  name: string;
}

/** What a screen asks for (ids as numbers; `from`/`to` for a report, `date` for a daily figure). */
export interface ReportParams {
  from?: string | undefined;
  to?: string | undefined;
  date?: string | undefined;
  venue_id?: number | undefined;
  merchant_id?: number | undefined;
  format?: 'json' | 'csv';
}

export function reportPath(kind: ReportKind, q: ReportParams, daily = false): string {
  return `/${daily ? 'daily' : 'reports'}/${kind}${query(q)}`;
}

export const reportsApi = {
  report: <K extends ReportKind>(kind: K, q: ReportParams) => http.get<ReportAnswers[K]>(reportPath(kind, q)),
  daily: <K extends DailyKind>(kind: K, q: ReportParams) =>
    http.get<ReportAnswers[K]>(reportPath(kind, q, true)),
  /** The venues a filter may offer (the first 100, by the venues list of the merchant). */
  venues: (merchant_id?: number) => venuesApi.list({ page_size: 100, merchant_id }).then((p) => p.items),
  /** The merchants the admin may pick. */
  merchants: () => http.get<Page<Merchant>>('/admin/merchants?page_size=100').then((p) => p.items),
};

export interface Download {
  blob: Blob;
  fileName: string;
}

/** The file name from `Content-Disposition` (`filename*` first), or the fallback. */
export function fileNameOf(header: string | null, fallback: string): string {
  const star = /filename\*=UTF-8''([^;]+)/i.exec(header ?? '');
  if (star?.[1]) return decodeURIComponent(star[1]);
  const plain = /filename="([^"]+)"/i.exec(header ?? '');
  return plain?.[1] ?? fallback;
}

/** How far a download is: bytes and data rows received, and the rows the server announced (null if it did not). */
export interface CsvProgress {
  bytes: number;
  rows: number;
  total: number | null;
}

/**
 * Counts the records of a CSV as its bytes arrive: a line feed ends a record unless it is inside a quoted field (an
 * odd number of quotes so far; escaped quotes come in pairs). Neither byte occurs inside a UTF-8 multi-byte
 * character, so chunks may split characters anywhere.
 */
export function csvRecordCounter() {
  let records = 0;
  let quoted = false;
  return (chunk: Uint8Array): number => {
    for (const b of chunk) {
      if (b === 0x22) quoted = !quoted;
      else if (b === 0x0a && !quoted) records++;
    }
    return records;
  };
}

/**
 * Fetches `path` (a report path with `format=csv`) as a file, calling `onProgress` as bytes arrive with the bytes
 * and data rows received so far (the header line not counted, the 合计 line never past the total) and the row count
 * the server announced. Rejects with an ThrownRequestError on an error answer or a broken connection.
 */
export async function downloadCsv(
  path: string,
  onProgress: (p: CsvProgress) => void,
  signal?: AbortSignal,
): Promise<Download> {
  const cfg = httpConfig();
  const url = `${cfg.baseURL}${path}`;
  const doFetch = cfg.fetch ?? globalThis.fetch.bind(globalThis);
  let res: Response;
  try {
    res = await doFetch(url, { headers: headersFor(path), signal });
  } catch {
    throw new ThrownRequestError({ status: 0, code: 'NETWORK', message: '网络异常，导出失败', url });
  }
  if (!res.ok || !res.body) {
    const body = (await res.json().catch(() => ({}))) as { code?: string; message?: string };
    throw new ThrownRequestError({
      status: res.status,
      code: body.code ?? `HTTP_${res.status}`,
      message: body.message ?? `导出失败（${res.status}）`,
      url,
    });
  }
  const announced = Number.parseInt(res.headers.get(CSV_ROWS_HEADER) ?? '', 10);
  const total = Number.isSafeInteger(announced) && announced >= 0 ? announced : null;
  const count = csvRecordCounter();
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  onProgress({ bytes, rows: 0, total });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      bytes += value.byteLength;
      const rows = Math.max(0, count(value) - 1);
      onProgress({ bytes, rows: total === null ? rows : Math.min(rows, total), total });
    }
  } catch {
    throw new ThrownRequestError({ status: 0, code: 'NETWORK', message: '下载中断，请重试', url });
  }
  return {
    blob: new Blob(chunks as BlobPart[], { type: 'text/csv;charset=utf-8' }),
    fileName: fileNameOf(res.headers.get('content-disposition'), 'report.csv'),
  };
}
