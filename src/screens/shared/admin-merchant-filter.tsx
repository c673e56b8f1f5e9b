import { useRequest } from '../../app/use-request';
import { merchantsApi } from '../../http/merchants-api';
import { MerchantFilter } from '../../ui/merchant-filter';

/**
 * The admin's merchant filter over a staff list, with its merchants loaded (an admin-only call: render it for
 * level 1 only; a merchant's rows are its own).
 */
export function AdminMerchantFilter({
  value,
  onChange,
}: {
  value: number | undefined;
  onChange: (merchantId: number | undefined) => void;
}) {
  const merchants = useRequest(merchantsApi.options);
  return (
    <MerchantFilter
      merchants={merchants.data?.items}
      failed={!!merchants.error}
      value={value}
      onChange={onChange}
    />
  );
}
