import type { DeviceOptions, DeviceStatus } from '../../../domain/devices.schema';
import { DEVICE_STATUSES } from '../../../domain/devices.schema';
import { AdminMerchantFilter } from '../../shared/admin-merchant-filter';

export type Filter = {
  q: string;
  /** The admin's merchant filter; the venue filter and the add forms offer that merchant's venues. */
  merchant_id: number | undefined;
  venue_id: string;
  product_id: string;
  status: DeviceStatus | '';
  online: string;
  page: number;
};

/**
 * The device list's toolbar: search, add, the admin's merchant filter, the four filters, and the label printing of
 * a selection or a venue. The admin adds devices once a merchant is chosen (its venues, its serials).
 */
export function DeviceToolbar(p: {
  filter: Filter;
  set: (patch: Partial<Filter>) => void;
  isAdmin: boolean;
  options: DeviceOptions | undefined;
  optionsError: string | undefined;
  selected: number;
  onAdd: (batch: boolean) => void;
  onPrintSelected: () => void;
  onClearSelected: () => void;
  onPrintVenue: () => void;
}) {
  const sel = (label: string, value: string, onChange: (v: string) => void, items: [string, string][]) => (
    <select
      className="select select-sm"
      aria-label={label}
      value={value}
      onChange={(e) => onChange(e.target.value)}
    >
      <option value="">全部{label}</option>
      {items.map(([k, name]) => (
        <option key={k} value={k}>
          {name}
        </option>
      ))}
    </select>
  );
  const canAdd = !!p.options && (!p.isAdmin || p.filter.merchant_id !== undefined);
  return (
    <>
      <div className="flex gap-2">
        <input
          type="search"
          className="input input-sm flex-1"
          placeholder="搜索名称或序列号"
          aria-label="搜索名称或序列号"
          value={p.filter.q}
          onChange={(e) => p.set({ q: e.target.value })}
        />
        <button type="button" className="btn btn-sm" disabled={!canAdd} onClick={() => p.onAdd(true)}>
          批量添加
        </button>
        <button
          type="button"
          className="btn btn-primary btn-sm"
          disabled={!canAdd}
          onClick={() => p.onAdd(false)}
        >
          添加
        </button>
      </div>
      {p.isAdmin && (
        <AdminMerchantFilter
          value={p.filter.merchant_id}
          onChange={(merchant_id) => p.set({ merchant_id, venue_id: '' })}
        />
      )}
      {p.isAdmin && p.filter.merchant_id === undefined && (
        <p className="text-xs text-base-content/60">添加设备前，请先选择所属商户。</p>
      )}
      <div className="grid grid-cols-2 gap-2">
        {sel(
          '场地',
          p.filter.venue_id,
          (v) => p.set({ venue_id: v }),
          (p.options?.venues ?? []).map((v) => [String(v.id), v.name]),
        )}
        {sel(
          '型号',
          p.filter.product_id,
          (v) => p.set({ product_id: v }),
          (p.options?.products ?? []).map((p) => [String(p.id), p.name]),
        )}
        {sel(
          '状态',
          p.filter.status,
          (v) => p.set({ status: v as DeviceStatus | '' }),
          Object.entries(DEVICE_STATUSES),
        )}
        {sel('在线情况', p.filter.online, (v) => p.set({ online: v }), [
          ['true', '在线'],
          ['false', '离线'],
        ])}
      </div>
      {p.optionsError && <p className="text-xs text-error">场地和型号加载失败：{p.optionsError}</p>}
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <button type="button" className="btn btn-sm" disabled={p.selected === 0} onClick={p.onPrintSelected}>
          打印所选标签（{p.selected}）
        </button>
        {p.selected > 0 && (
          <button type="button" className="btn btn-ghost btn-sm" onClick={p.onClearSelected}>
            清除选择
          </button>
        )}
        {p.filter.venue_id && (
          <button type="button" className="btn btn-sm" onClick={p.onPrintVenue}>
            打印本场地全部标签
          </button>
        )}
      </div>
    </>
  );
}
