import { useCallback, useState } from 'react';
import { useLocation, useSearch } from 'wouter';
import type { ScreenProps } from '../../app/screen-registry';
import { loadMe } from '../../app/staff-features';
import { useRequest } from '../../app/use-request';
import type { Venue } from '../../domain/venues.schema';
import { venuesApi } from '../../http/venues-api';
import { Toast } from '../../ui';
import { ResourceList } from '../../ui/resource-list';
import { Sheet } from '../../ui/sheet';
import { AdminMerchantFilter } from '../shared/admin-merchant-filter';
import { StaffPage } from '../shared/staff-page';
import { useResourceList } from '../shared/use-resource-list';
import { VenueDetail } from './parts/venue-detail';
import { VenueForm } from './parts/venue-form';

const PAGE_SIZE = 20;

/** A positive id from the address bar, or undefined. */
const idParam = (search: string, key: string) => {
  const v = new URLSearchParams(search).get(key);
  return v && /^[1-9][0-9]{0,9}$/.test(v) ? Number(v) : undefined;
};

/**
 * `/merchant/venues`: the venues with search; add one in a sheet; a venue opens its page (`?venue=<id>`, so a
 * reload stays there) with its name, address and service prices. The admin sees every merchant's venues.
 */
export default function VenuesScreen({ route }: ScreenProps) {
  const [location, navigate] = useLocation();
  const search = useSearch();
  const venueId = idParam(search, 'venue');
  const me = useRequest(loadMe);
  const isAdmin = me.data?.user.level === 1;
  const open = (id?: number) => navigate(id ? `${location}?venue=${id}` : location);
  return (
    <StaffPage route={route} description="您名下的场地：名称、地址与各项服务价格。">
      {venueId ? (
        <VenueDetail venueId={venueId} showMerchant={isAdmin} onBack={() => open()} />
      ) : (
        <VenueList isAdmin={isAdmin} onOpen={open} />
      )}
    </StaffPage>
  );
}

type Filter = { q: string; page: number; merchant_id: number | undefined };

function VenueList({ isAdmin, onOpen }: { isAdmin: boolean; onOpen: (id: number) => void }) {
  const { filter, refilter, list, listProps } = useResourceList(
    venuesApi.list,
    { q: '', page: 1, merchant_id: undefined } as Filter,
    PAGE_SIZE,
    undefined,
    true,
  );
  const [adding, setAdding] = useState(false);
  const [saved, setSaved] = useState(false);
  const refresh = list.refresh;
  const onFormDone = useCallback(
    (ok: boolean) => {
      setAdding(false);
      if (ok) {
        setSaved(true);
        refresh();
      }
    },
    [refresh],
  );
  return (
    <>
      <ResourceList
        {...listProps}
        keyOf={(v) => v.id}
        toolbar={
          <VenueToolbar filter={filter} onFilter={refilter} isAdmin={isAdmin} onAdd={() => setAdding(true)} />
        }
        emptyTitle={filter.q ? '没有找到场地' : '还没有场地'}
        emptyDescription={filter.q ? '换个关键词试试。' : '点击“新增”添加第一个场地，再为它设置服务价格。'}
        renderItem={(v: Venue) => <VenueRow venue={v} isAdmin={isAdmin} onOpen={() => onOpen(v.id)} />}
      />
      <Sheet open={adding} title="新增场地" onClose={() => setAdding(false)}>
        {adding && <VenueForm venue={null} merchantId={filter.merchant_id} onDone={onFormDone} />}
      </Sheet>
      {saved && <Toast message="场地已添加" kind="success" onClose={() => setSaved(false)} />}
    </>
  );
}

/** Search, 新增 (the admin adds a venue for the merchant chosen in the filter) and the admin's merchant filter. */
function VenueToolbar({
  filter,
  onFilter,
  isAdmin,
  onAdd,
}: {
  filter: Filter;
  onFilter: (change: Partial<Filter>) => void;
  isAdmin: boolean;
  onAdd: () => void;
}) {
  const canAdd = !isAdmin || filter.merchant_id !== undefined;
  return (
    <>
      <div className="flex gap-2">
        <input
          type="search"
          className="input flex-1"
          placeholder="搜索场地名称或地址"
          aria-label="搜索场地名称或地址"
          value={filter.q}
          onChange={(e) => onFilter({ q: e.target.value })}
        />
        <button type="button" className="btn btn-primary btn-sm" disabled={!canAdd} onClick={onAdd}>
          新增
        </button>
      </div>
      {isAdmin && (
        <AdminMerchantFilter
          value={filter.merchant_id}
          onChange={(merchant_id) => onFilter({ merchant_id })}
        />
      )}
      {!canAdd && <p className="text-xs text-base-content/60">新增场地前，请先选择所属商户。</p>}
    </>
  );
}

/** A venue: name, address (and merchant for the admin), devices and active prices; opens its page. */
function VenueRow({ venue: v, isAdmin, onOpen }: { venue: Venue; isAdmin: boolean; onOpen: () => void }) {
  return (
    <button
      type="button"
      className="flex w-full items-center gap-3 p-3 text-left"
      data-testid="venue-row"
      onClick={onOpen}
    >
      <span className="min-w-0 flex-1">
        <span className="block truncate font-medium">{v.name}</span>
        <span className="block truncate text-xs text-base-content/60">
          {isAdmin && `${v.merchant_name} · `}
          {v.address || '未填写地址'}
        </span>
        <span className="block text-xs text-base-content/60">
          {v.device_count} 台设备 · {v.active_price_count} 个价格启用
          {v.active_price_count === 0 && <span className="ml-1 text-warning">（用户无法支付）</span>}
        </span>
      </span>
      <span aria-hidden="true" className="text-base-content/40">
        ›
      </span>
    </button>
  );
}
