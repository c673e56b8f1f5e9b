import type { Merchant } from '../domain/merchants.schema';

export interface MerchantFilterProps {
  /** The merchants to offer (`GET /backend/admin/merchants?page_size=100`); undefined while they load. */
  merchants: Pick<Merchant, 'id' | 'name' | 'status'>[] | undefined;
  /** The chosen merchant's id; undefined for all merchants. */
  value: number | undefined;
  onChange: (merchantId: number | undefined) => void;
  /** The list could not be loaded: the select says so and offers only 全部商户. */
  failed?: boolean;
  className?: string;
  /** What the empty choice says: 全部商户 by default (a filter); a form asks 请选择商户 instead. */
  emptyLabel?: string;
  /** The select's id, for a form field's label. */
  id?: string;
}

/**
 * The admin's merchant filter for staff lists and reports (a merchant never sees one: its rows are its own). Staff
 * only: import it by path, never from the `src/ui` barrel that the pay page loads.
 */
export function MerchantFilter({
  merchants,
  value,
  onChange,
  failed,
  className,
  emptyLabel = '全部商户',
  id,
}: MerchantFilterProps) {
  const sorted = [...(merchants ?? [])].sort((a, b) => a.name.localeCompare(b.name, 'zh-CN'));
  const placeholder = failed ? '商户列表加载失败' : merchants === undefined ? '正在加载商户…' : emptyLabel;
  return (
    <select
      id={id}
      className={`select ${className ?? 'w-full'}`}
      aria-label={id ? undefined : '商户'}
      value={value === undefined ? '' : String(value)}
      disabled={merchants === undefined && !failed}
      onChange={(e) => onChange(e.target.value === '' ? undefined : Number(e.target.value))}
    >
      <option value="">{placeholder}</option>
      {sorted.map((m) => (
        <option key={m.id} value={m.id}>
          {m.name}
          {m.status === 'disabled' ? '（已停用）' : ''}
        </option>
      ))}
    </select>
  );
}
