import { DEVICE_STATUSES, type Device } from '../../../domain/devices.schema';

export type RowAction = 'qr' | 'edit' | 'move' | 'toggle';

const STATUS_CLASS: Record<Device['status'], string> = {
  idle: 'text-success',
  running: 'text-info',
  offline: 'text-base-content/50',
  fault: 'text-error',
  disabled: 'text-base-content/50',
};

/**
 * One device in the list: selection box, name, status and online, (the admin: merchant ·) venue · model · serial,
 * what runs now, actions.
 */
export function DeviceRow({
  device: d,
  showMerchant = false,
  selected,
  onSelect,
  onAction,
}: {
  device: Device;
  showMerchant?: boolean;
  selected: boolean;
  onSelect: (on: boolean) => void;
  onAction: (a: RowAction) => void;
}) {
  return (
    <div className="flex gap-3 p-3" data-testid="device-row">
      <input
        type="checkbox"
        className="checkbox checkbox-sm mt-1"
        aria-label={`选择 ${d.name}`}
        checked={selected}
        onChange={(e) => onSelect(e.target.checked)}
      />
      <div className="min-w-0 flex-1 space-y-1">
        <p className="flex items-center gap-2">
          <span className="truncate font-medium">{d.name}</span>
          <span className={`text-xs ${STATUS_CLASS[d.status]}`}>{DEVICE_STATUSES[d.status]}</span>
          <span className={`text-xs ${d.online ? 'text-success' : 'text-base-content/50'}`}>
            {d.online ? '● 在线' : '○ 离线'}
          </span>
        </p>
        <p className="truncate text-xs text-base-content/60">
          {showMerchant && `${d.merchant_name} · `}
          {d.venue_name} · {d.product_name} · {d.serial}
        </p>
        {d.session && (
          <p className="text-xs text-info" data-testid="device-session">
            {d.session.status === 'starting'
              ? '正在启动'
              : `使用中，剩余 ${d.session.minutes_left ?? 0} 分钟`}
            {' · '}订单 {d.session.order_no}
          </p>
        )}
        <div className="flex gap-1">
          <button type="button" className="btn btn-ghost btn-xs" onClick={() => onAction('qr')}>
            二维码
          </button>
          <button type="button" className="btn btn-ghost btn-xs" onClick={() => onAction('edit')}>
            编辑
          </button>
          <button type="button" className="btn btn-ghost btn-xs" onClick={() => onAction('move')}>
            移动
          </button>
          <button
            type="button"
            className={`btn btn-ghost btn-xs ${d.status === 'disabled' ? '' : 'text-error'}`}
            onClick={() => onAction('toggle')}
          >
            {d.status === 'disabled' ? '启用' : '停用'}
          </button>
        </div>
      </div>
    </div>
  );
}
