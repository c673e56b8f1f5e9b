/**
 * QR codes of device pay links (docs/devices.md "QR labels"): the SVG of `src/ui/qr-code.ts` for the label sheet and
 * the download, a PNG drawn on a canvas from the same matrix. Loaded only with the device label chunk, never on the
 * pay page.
 */
import { QR_MARGIN, qrMatrix, qrSvg } from '../../../ui/qr-code';

export { qrSvg };

/** A PNG of `scale` pixels per module. */
export function qrPng(text: string, scale = 10): Promise<Blob> {
  const m = qrMatrix(text);
  const size = (m.length + QR_MARGIN * 2) * scale;
  const canvas = document.createElement('canvas');
  canvas.width = size;
  canvas.height = size;
  const ctx = canvas.getContext('2d');
  if (!ctx) return Promise.reject(new Error('此浏览器无法生成图片'));
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, size, size);
  ctx.fillStyle = '#000';
  m.forEach((row, r) =>
    row.forEach((dark, c) => {
      if (dark) ctx.fillRect((c + QR_MARGIN) * scale, (r + QR_MARGIN) * scale, scale, scale);
    }),
  );
  return new Promise((resolve, reject) =>
    canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('图片生成失败'))), 'image/png'),
  );
}

/** Saves a blob under `name` through a temporary link. */
export function download(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
