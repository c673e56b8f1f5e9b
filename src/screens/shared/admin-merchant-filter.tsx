import { useRequest } from '../../app/use-request';
import { merchantsApi } from '../../http/merchants-api';
import { MerchantFilter } from '../../ui/merchant-filter';

/**
 * The admin's merchant picker, with its merchants loaded (an admin-only call: render it for level 1 only; a
 * merchant's rows are its own): a filter over a staff list, or with `emptyLabel` and `id` a form's merchant field.
 */
export function AdminMerchantFilter({
  value,
  onChange,
  emptyLabel,
  id,
}: {
  value: number | undefined;
  onChange: (merchantId: number | undefined) => void;
  emptyLabel?: string;
  id?: string;
}) {
  const merchants = useRequest(merchantsApi.options);
  return (
    <MerchantFilter
      merchants={merchants.data?.items}
      failed={!!merchants.error}
      value={value}
      onChange={onChange}
      emptyLabel={emptyLabel}
      id={id}
    />
  );
}
