/**
 * Device QR codes: one device's code with PNG and SVG downloads, and the A4 label sheet (QR, name, venue, serial,
 * 扫码使用) printed with the browser's print dialog; `device-labels.css` lays it out for paper. The QR library
 * (`device-qr.ts`) is loaded on first use, in its own chunk, so no other page carries it.
 */
import { useEffect, useState } from 'react';
import { createPortal } from 'react-dom';
import type { Device } from '../../../domain/devices.schema';
import './device-labels.css';
import type * as QrApi from './device-qr';

type QrModule = typeof QrApi;
let qrModule: Promise<QrModule> | null = null;
const loadQr = () => (qrModule ??= import('./device-qr'));

/** The QR module once loaded (null before). */
function useQr(): QrModule | null {
  const [m, setM] = useState<QrModule | null>(null);
  useEffect(() => {
    let live = true;
    void loadQr().then((x) => live && setM(x));
    return () => {
      live = false;
    };
  }, []);
  return m;
}

function QrImage({ text, className }: { text: string; className: string }) {
  const qr = useQr();
  if (!qr) return <div className={`${className} aspect-square`} aria-busy="true" />;
  const svg = qr.qrSvg(text);
  return (
    <div
      className={className}
      role="img"
      aria-label={`二维码：${text}`}
      dangerouslySetInnerHTML={{ __html: svg }}
    />
  );
}

/** The sheet of labels, over the whole page; 打印 opens the browser's print dialog (A4, 12 labels a page). */
export function LabelSheet({
  devices,
  title,
  onClose,
}: {
  devices: Device[];
  title: string;
  onClose: () => void;
}) {
  return createPortal(
    <div className="label-print-root" data-testid="label-sheet">
      <div className="label-toolbar flex items-center gap-2 border-b border-base-200 bg-base-100 p-3">
        <button type="button" className="btn btn-ghost btn-sm" onClick={onClose}>
          返回
        </button>
        <p className="min-w-0 flex-1 truncate text-sm font-medium">
          {title} · {devices.length} 张
        </p>
        <button type="button" className="btn btn-primary btn-sm" onClick={() => window.print()}>
          打印
        </button>
      </div>
      <p className="label-toolbar px-3 pt-2 text-xs text-base-content/60">
        打印时纸张选 A4、缩放 100%，每页 12 张；裁切后贴在设备正面。
      </p>
      <div className="label-sheet">
        {devices.map((d) => (
          <article key={d.id} className="device-label" data-testid="device-label" data-pay-url={d.pay_url}>
            <QrImage text={d.pay_url} className="device-label-qr" />
            <p className="device-label-name">{d.name}</p>
            <p className="device-label-meta">{d.venue_name}</p>
            <p className="device-label-meta">编号 {d.serial}</p>
            <p className="device-label-cta">微信扫码使用</p>
          </article>
        ))}
      </div>
    </div>,
    document.body,
  );
}

/** One device's code, its link, the downloads and the way to print its label. */
export function DeviceQrPanel({
  device,
  moved,
  onPrint,
}: {
  device: Device;
  /** Set right after a move: the old label no longer works. */
  moved: boolean;
  onPrint: () => void;
}) {
  const [error, setError] = useState<string | null>(null);
  const qr = useQr();
  const file = device.serial || `device-${device.id}`;
  return (
    <div className="space-y-3" data-testid="device-qr">
      {moved && (
        <p className="alert alert-warning text-sm" role="status">
          设备已移到「{device.venue_name}
          」，二维码已更新。原来贴的标签已失效（扫码会提示设备已移至其他场地），请打印新标签替换。
        </p>
      )}
      <QrImage text={device.pay_url} className="mx-auto w-56" />
      <p className="text-center text-sm font-medium">{device.name}</p>
      <p className="text-center text-xs break-all text-base-content/60" data-testid="pay-url">
        {device.pay_url}
      </p>
      {error && (
        <p className="alert alert-error text-sm" role="alert">
          {error}
        </p>
      )}
      <div className="grid grid-cols-3 gap-2">
        <button
          type="button"
          className="btn btn-sm"
          onClick={() =>
            qr?.qrPng(device.pay_url).then(
              (b) => qr.download(b, `${file}.png`),
              (e: Error) => setError(e.message),
            )
          }
        >
          下载 PNG
        </button>
        <button
          type="button"
          className="btn btn-sm"
          onClick={() =>
            qr?.download(new Blob([qr.qrSvg(device.pay_url)], { type: 'image/svg+xml' }), `${file}.svg`)
          }
        >
          下载 SVG
        </button>
        <button type="button" className="btn btn-primary btn-sm" onClick={onPrint}>
          打印标签
        </button>
      </div>
    </div>
  );
}
