import type { DeviceStatus, PublicDevice, PublicVenue } from '../../domain/api';

const STATUS: Record<DeviceStatus, { label: string; cls: string }> = {
  idle: { label: '空闲', cls: 'bg-success text-success-content' },
  running: { label: '使用中', cls: 'bg-warning text-warning-content' },
  offline: { label: '离线', cls: 'bg-base-300' },
  fault: { label: '故障', cls: 'bg-error text-error-content' },
  disabled: { label: '已停用', cls: 'bg-base-300' },
};

export interface DeviceCardProps {
  device: PublicDevice;
  venue: PublicVenue;
}

/** The device behind the QR code: name, product, status badge, venue, address and merchant. */
export function DeviceCard({ device, venue }: DeviceCardProps) {
  const status = STATUS[device.status] ?? STATUS.offline;
  return (
    <section className="rounded-box bg-base-100 p-4" data-testid="device-card">
      <div className="flex items-start justify-between gap-3">
        <div className="min-w-0">
          <h2 className="truncate text-lg font-semibold" data-testid="device-name">
            {device.name}
          </h2>
          <p className="text-sm text-base-content/60">
            {device.product.name} · 编号 {device.serial}
          </p>
        </div>
        {/* Utility classes rather than daisyUI's badge: the CSS budget of the pay path is tight. */}
        <span
          className={`shrink-0 rounded-full px-2.5 py-0.5 text-xs ${status.cls}`}
          data-testid="device-status"
        >
          {status.label}
        </span>
      </div>
      <div className="mt-3 border-t border-base-200 pt-3 text-sm">
        <p className="font-medium">{venue.name}</p>
        <p className="text-base-content/60">{venue.address}</p>
        <p className="mt-1 text-xs text-base-content/50">商户：{venue.merchant.name}</p>
      </div>
    </section>
  );
}
