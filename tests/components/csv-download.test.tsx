// @vitest-environment node
import './user-dom';
/**
 * The CSV export's progress is honest: the server announces the data rows before the body (`x-report-rows`), the
 * client counts the records as the bytes arrive (line feeds outside quoted fields), and the button shows
 * 「导出中 n / total 行 · KB」 with a determinate bar. Against the real server in process with 1,506 devices; the
 * network is slowed by holding the body after its first chunk, so the screen can be looked at mid-download.
 */
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configureHttp } from '../../src/http/client';
import { csvRecordCounter, downloadCsv, type CsvProgress } from '../../src/http/reports-api';
import { CsvExport, progressText } from '../../src/screens/reports/parts/csv-export';
import { startStaffHarness, type StaffHarness } from './staff-harness';

let h: StaffHarness;
const PATH = '/reports/device-usage?format=csv';
const saved: string[] = [];
beforeAll(async () => {
  const anchor = (window as unknown as { HTMLAnchorElement: typeof HTMLAnchorElement }).HTMLAnchorElement;
  anchor.prototype.click = function (this: HTMLAnchorElement) {
    saved.push(this.download);
  };
  h = await startStaffHarness('merchant');
  await h.t.deps.db.execute(
    sql`insert into devices (merchant_id, venue_id, product_id, name, serial)
        select 1, 1, 1, 'CSV 桩 ' || i, 'CSV-' || lpad(i::text, 5, '0') from generate_series(1, 1500) i`,
  );
}, 60_000);
afterAll(async () => {
  cleanup();
  await h?.close();
});

const bytes = (s: string) => new TextEncoder().encode(s);

describe('counting CSV records as bytes arrive', () => {
  it('counts line feeds outside quoted fields, across chunks that split fields and characters', () => {
    const text = '\uFEFF设备,备注\r\n"广场,1号","换行\r\n在引号里"\r\n"说""好""",无\r\n';
    const all = bytes(text);
    expect(csvRecordCounter()(all)).toBe(3);
    for (let cut = 1; cut < all.length; cut++) {
      const count = csvRecordCounter();
      count(all.subarray(0, cut));
      expect(count(all.subarray(cut))).toBe(3);
    }
  });

  it('progress text: rows of the announced total and the bytes; rows and bytes alone without a total', () => {
    expect(progressText({ bytes: 46_285, rows: 120, total: 2000 })).toBe('导出中 120 / 2000 行 · 45.2 KB');
    expect(progressText({ bytes: 800, rows: 7, total: null })).toBe('导出中 已收到 7 行 · 800 B');
  });
});

describe('downloadCsv against the real server', () => {
  it('reports rows received up to the total the server announced', async () => {
    const seen: CsvProgress[] = [];
    const file = await downloadCsv(PATH, (p) => seen.push(p));
    const lines = (await file.blob.text()).trimEnd().split('\r\n');
    expect(lines).toHaveLength(1506 + 2);
    expect(seen[0]).toEqual({ bytes: 0, rows: 0, total: 1506 });
    // Streamed: progress came in several steps, not once at the end.
    expect(seen.length).toBeGreaterThan(3);
    expect(seen.at(-1)).toEqual({ bytes: file.blob.size, rows: 1506, total: 1506 });
    for (let i = 1; i < seen.length; i++) {
      expect(seen[i]!.rows).toBeGreaterThanOrEqual(seen[i - 1]!.rows);
      expect(seen[i]!.bytes).toBeGreaterThan(seen[i - 1]!.bytes);
    }
  });
});

describe('the export button mid-download', () => {
  it('shows n / total rows with a determinate bar, then saves the file', async () => {
    let release!: () => void;
    const held = new Promise<void>((ok) => (release = ok));
    configureHttp({
      baseURL: '/backend',
      stores: { local: localStorage, session: sessionStorage },
      navigate: () => {},
      currentPath: () => '/reports/device-usage',
      log: () => {},
      // The real answer, its body held after the first chunk (a slow network).
      fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
        const res = await h.t.app.request(String(input), init);
        let first = true;
        const slow = new TransformStream<Uint8Array, Uint8Array>({
          async transform(chunk, ctl) {
            if (!first) await held;
            first = false;
            ctl.enqueue(chunk);
          },
        });
        return new Response(res.body!.pipeThrough(slow), { status: res.status, headers: res.headers });
      }) as typeof fetch,
    });
    render(<CsvExport path={PATH} />);
    fireEvent.click(screen.getByRole('button', { name: '导出 CSV' }));
    const line = await screen.findByTestId('csv-progress');
    await waitFor(() => expect(line.textContent).toMatch(/^导出中 \d+ \/ 1506 行 · /));
    const bar = document.querySelector('progress')!;
    expect(bar.getAttribute('max')).toBe('1506');
    expect(Number(bar.getAttribute('value'))).toBeLessThan(1506);
    release();
    await screen.findByText(/^已导出 设备使用报表_.*\.csv$/);
    expect(saved.at(-1)).toMatch(/^设备使用报表_.*\.csv$/);
  });
});
