/**
 * QR codes of device pay links, drawn from one module matrix (qrcode-generator, docs/devices.md "QR labels"): an
 * SVG for the label sheet and the download, a PNG drawn on a canvas. Loaded only with the device label chunk,
 * never on the pay page.
 */
import qrcode from 'qrcode-generator';

/** Quiet zone around the code, in modules (the QR standard asks for 4). */
export const QR_MARGIN = 4;

/** The dark modules of `text`'s QR code (error correction M: a scratched label still scans). */
export function qrMatrix(text: string): boolean[][] {
  const q = qrcode(0, 'M');
  q.addData(text);
  q.make();
  const n = q.getModuleCount();
  return Array.from({ length: n }, (_, r) => Array.from({ length: n }, (_, c) => q.isDark(r, c)));
}

/** A scalable SVG: one path of 1x1 squares on a white square, sized by its container. */
export function qrSvg(text: string): string {
  const m = qrMatrix(text);
  const size = m.length + QR_MARGIN * 2;
  let d = '';
  m.forEach((row, r) =>
    row.forEach((dark, c) => {
      if (dark) d += `M${c + QR_MARGIN} ${r + QR_MARGIN}h1v1h-1z`;
    }),
  );
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size} ${size}" shape-rendering="crispEdges">` +
    `<rect width="${size}" height="${size}" fill="#fff"/><path d="${d}" fill="#000"/></svg>`
  );
}

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
