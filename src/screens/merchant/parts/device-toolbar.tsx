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
      <DeviceFilters filter={p.filter} set={p.set} options={p.options} />
      {p.optionsError && <p className="text-xs text-error">场地和型号加载失败：{p.optionsError}</p>}
      <LabelActions
        selected={p.selected}
        venueChosen={Boolean(p.filter.venue_id)}
        onPrintSelected={p.onPrintSelected}
        onClearSelected={p.onClearSelected}
        onPrintVenue={p.onPrintVenue}
      />
    </>
  );
}

/** The four filters: venue, model, status, online. */
function DeviceFilters({
  filter,
  set,
  options,
}: {
  filter: Filter;
  set: (patch: Partial<Filter>) => void;
  options: DeviceOptions | undefined;
}) {
  return (
    <div className="grid grid-cols-2 gap-2">
      <FilterSelect
        label="场地"
        value={filter.venue_id}
        onChange={(v) => set({ venue_id: v })}
        items={(options?.venues ?? []).map((v) => [String(v.id), v.name])}
      />
      <FilterSelect
        label="型号"
        value={filter.product_id}
        onChange={(v) => set({ product_id: v })}
        items={(options?.products ?? []).map((p) => [String(p.id), p.name])}
      />
      <FilterSelect
        label="状态"
        value={filter.status}
        onChange={(v) => set({ status: v as DeviceStatus | '' })}
        items={Object.entries(DEVICE_STATUSES)}
      />
      <FilterSelect
        label="在线情况"
        value={filter.online}
        onChange={(v) => set({ online: v })}
        items={[
          ['true', '在线'],
          ['false', '离线'],
        ]}
      />
    </div>
  );
}

/** A small filter select whose first option is 全部<label>. */
function FilterSelect({
  label,
  value,
  onChange,
  items,
}: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  items: [string, string][];
}) {
  return (
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
}

/** Label printing: the selection (and clearing it), or the whole venue once a venue is chosen. */
function LabelActions(p: {
  selected: number;
  venueChosen: boolean;
  onPrintSelected: () => void;
  onClearSelected: () => void;
  onPrintVenue: () => void;
}) {
  return (
    <div className="flex flex-wrap items-center gap-2 text-sm">
      <button type="button" className="btn btn-sm" disabled={p.selected === 0} onClick={p.onPrintSelected}>
        打印所选标签（{p.selected}）
      </button>
      {p.selected > 0 && (
        <button type="button" className="btn btn-ghost btn-sm" onClick={p.onClearSelected}>
          清除选择
        </button>
      )}
      {p.venueChosen && (
        <button type="button" className="btn btn-sm" onClick={p.onPrintVenue}>
          打印本场地全部标签
        </button>
      )}
    </div>
  );
}
