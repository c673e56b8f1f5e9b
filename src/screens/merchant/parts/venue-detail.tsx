import { useCallback, useState } from 'react';
import { useRequest } from '../../../app/use-request';
import { venuesApi } from '../../../http/venues-api';
import { ErrorState, Loading, Toast } from '../../../ui';
import { Sheet } from '../../../ui/sheet';
import { useLast } from '../../shared/use-last';
import { VenueForm } from './venue-form';
import { VenuePrices } from './venue-prices';

/** One venue: its name and address (edited in a sheet) and its service prices. */
export function VenueDetail({
  venueId,
  showMerchant,
  onBack,
}: {
  venueId: number;
  showMerchant: boolean;
  onBack: () => void;
}) {
  const req = useRequest(venuesApi.get, venueId);
  const venue = useLast(req.data);
  const [editing, setEditing] = useState(false);
  const [saved, setSaved] = useState(false);
  const refresh = req.refresh;
  const onFormDone = useCallback(
    (ok: boolean) => {
      setEditing(false);
      if (ok) {
        setSaved(true);
        refresh();
      }
    },
    [refresh],
  );
  const back = (
    <button type="button" className="btn btn-ghost btn-sm mx-2 mt-2" onClick={onBack}>
      ‹ 全部场地
    </button>
  );
  if (req.error)
    return (
      <>
        {back}
        <ErrorState message={req.error.message} onRetry={req.canRetry ? req.retry : undefined} />
      </>
    );
  if (!venue) return <Loading />;
  return (
    <>
      {back}
      <section className="mx-4 rounded-box bg-base-100 p-4" data-testid="venue-card">
        <div className="flex items-start gap-3">
          <div className="min-w-0 flex-1">
            <h2 className="text-lg font-semibold">{venue.name}</h2>
            <p className="text-sm text-base-content/70">{venue.address || '未填写地址'}</p>
            <p className="mt-1 text-xs text-base-content/60">
              {showMerchant && `${venue.merchant_name} · `}
              {venue.device_count} 台设备 · {venue.active_price_count}/{venue.price_count} 个价格启用
            </p>
          </div>
          <button type="button" className="btn btn-sm" onClick={() => setEditing(true)}>
            编辑
          </button>
        </div>
      </section>
      <VenuePrices venueId={venueId} onChanged={refresh} />
      <Sheet open={editing} title="编辑场地" onClose={() => setEditing(false)}>
        {editing && <VenueForm venue={venue} onDone={onFormDone} />}
      </Sheet>
      {saved && <Toast message="场地已保存" kind="success" onClose={() => setSaved(false)} />}
    </>
  );
}
