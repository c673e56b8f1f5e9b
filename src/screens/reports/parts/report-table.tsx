/**
 * A compact table for report figures: the first column sticky and wrapping (long device names take two lines, so
 * the figures fit at 390 px), numbers right-aligned on one line; wider tables still scroll sideways.
 */
import type { Column } from '../report-config';

const FIRST = 'sticky left-0 z-[1] bg-base-100 min-w-28 max-w-40 break-words';

export interface ReportTableProps<R> {
  title: string;
  columns: Column<R>[];
  rows: R[];
  /** A bold last line (合计). */
  totals?: R | undefined;
  empty?: string;
  testId?: string;
}

export function ReportTable<R>({
  title,
  columns,
  rows,
  totals,
  empty = '所选范围内没有记录',
  testId,
}: ReportTableProps<R>) {
  const cell = (c: Column<R>, r: R, i: number, bold = false) => (
    <td
      key={i}
      className={`${c.numeric ? 'text-right tabular-nums' : ''} ${i === 0 ? FIRST : 'whitespace-nowrap'} ${bold ? 'font-semibold' : ''}`}
    >
      {bold && !c.numeric ? (i === 0 ? '合计' : '') : c.value(r)}
    </td>
  );
  return (
    <section className="mx-4 mt-3 rounded-box bg-base-100" data-testid={testId}>
      <h2 className="px-3 pt-3 text-sm font-medium">{title}</h2>
      {rows.length === 0 ? (
        <p className="px-3 py-6 text-center text-sm text-base-content/60">{empty}</p>
      ) : (
        <div className="overflow-x-auto">
          <table className="table table-xs">
            <thead>
              <tr>
                {columns.map((c, i) => (
                  <th
                    key={c.label}
                    className={`${c.numeric ? 'text-right' : ''} ${i === 0 ? FIRST : 'whitespace-nowrap'}`}
                  >
                    {c.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((r, ri) => (
                <tr key={ri}>{columns.map((c, i) => cell(c, r, i))}</tr>
              ))}
            </tbody>
            {totals && (
              <tfoot className="text-xs">
                <tr>{columns.map((c, i) => cell(c, totals, i, true))}</tr>
              </tfoot>
            )}
          </table>
        </div>
      )}
    </section>
  );
}
