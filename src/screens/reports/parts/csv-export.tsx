/**
 * The CSV export button: streams the file with a progress line (rows received of the rows the server announced, and
 * the bytes) and a cancel button, then saves it.
 */
import { useRef, useState } from 'react';
import { downloadCsv, type CsvProgress } from '../../../http/reports-api';
import { Toast } from '../../../ui/toast';

const kb = (bytes: number) => (bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`);

/** 「导出中 120 / 2000 行 · 45.2 KB」, or without an announced total the rows and bytes so far. */
export function progressText({ bytes, rows, total }: CsvProgress): string {
  return `导出中 ${total === null ? `已收到 ${rows} 行` : `${rows} / ${total} 行`} · ${kb(bytes)}`;
}

function save(blob: Blob, fileName: string) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function CsvExport({ path, disabled }: { path: string; disabled?: boolean }) {
  const [progress, setProgress] = useState<CsvProgress | null>(null);
  const [toast, setToast] = useState<{ message: string; kind: 'success' | 'error' } | null>(null);
  const abort = useRef<AbortController | null>(null);
  const start = async () => {
    const ctl = new AbortController();
    abort.current = ctl;
    setProgress({ bytes: 0, rows: 0, total: null });
    try {
      const file = await downloadCsv(path, setProgress, ctl.signal);
      save(file.blob, file.fileName);
      setToast({ message: `已导出 ${file.fileName}`, kind: 'success' });
    } catch (err) {
      if (!ctl.signal.aborted)
        setToast({ message: err instanceof Error ? err.message : '导出失败', kind: 'error' });
    } finally {
      abort.current = null;
      setProgress(null);
    }
  };
  return (
    <>
      {progress === null ? (
        <button
          type="button"
          className="btn btn-sm btn-outline"
          disabled={disabled}
          onClick={() => void start()}
        >
          导出 CSV
        </button>
      ) : (
        <div className="flex items-center gap-2 text-xs" role="status" aria-live="polite">
          {progress.total ? (
            <progress className="progress progress-primary w-16" value={progress.rows} max={progress.total} />
          ) : (
            <progress className="progress progress-primary w-16" />
          )}
          <span data-testid="csv-progress">{progressText(progress)}</span>
          <button type="button" className="btn btn-xs btn-ghost" onClick={() => abort.current?.abort()}>
            取消
          </button>
        </div>
      )}
      {toast && <Toast message={toast.message} kind={toast.kind} onClose={() => setToast(null)} />}
    </>
  );
}
