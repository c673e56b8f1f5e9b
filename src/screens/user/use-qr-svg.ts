import { useEffect, useState } from 'react';

/**
 * A QR code of `text` as an SVG data URL. The QR library loads on demand, in its own chunk, so it never weighs on
 * the pay page or on the profile's first paint.
 */
export function useQrSvg(text: string | undefined): string | null {
  const [src, setSrc] = useState<string | null>(null);
  useEffect(() => {
    if (!text) return;
    let live = true;
    void import('../../ui/qr-code')
      .then((qr) => qr.qrSvg(text, 1))
      .then((svg) => {
        if (live) setSrc(`data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`);
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [text]);
  return src;
}
