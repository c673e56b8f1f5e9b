/**
 * QR codes as SVG, drawn from one module matrix (qrcode-generator, docs/devices.md "QR labels"): the device labels
 * and their downloads, and the member code on 我的. Always imported dynamically, so the library is one chunk that
 * only the pages showing a code load, never `/user/pay`.
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

/** A scalable SVG: one path of 1x1 squares on a white square of `margin` modules, sized by its container. */
export function qrSvg(text: string, margin = QR_MARGIN): string {
  const m = qrMatrix(text);
  const size = m.length + margin * 2;
  let d = '';
  m.forEach((row, r) =>
    row.forEach((dark, c) => {
      if (dark) d += `M${c + margin} ${r + margin}h1v1h-1z`;
    }),
  );
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size} ${size}" shape-rendering="crispEdges">` +
    `<rect width="${size}" height="${size}" fill="#fff"/><path d="${d}" fill="#000"/></svg>`
  );
}
