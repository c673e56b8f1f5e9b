import { useCallback, useMemo } from 'react';
import { useRequest } from '../../../app/use-request';
import type { VenuePrice } from '../../../domain/venues.schema';
import { venuesApi } from '../../../http/venues-api';
import { Money } from '../../../ui';
import { ResourceList } from '../../../ui/resource-list';
import { Sheet } from '../../../ui/sheet';
import { DeleteConfirm } from '../../shared/delete-confirm';
import { OrderedRow } from '../../shared/ordered-row';
import { useCatalogue, type CatalogueCalls } from '../../shared/use-catalogue';
import { useLast } from '../../shared/use-last';
import { PriceForm } from './price-form';

/**
 * The service prices of one venue: add and edit in a sheet, activate or deactivate, move up or down (the order end
 * users see on the pay page), delete with a confirmation. `onChanged` tells the venue's card to refresh its counts.
 */
export function VenuePrices({ venueId, onChanged }: { venueId: number; onChanged: () => void }) {
  const list = useRequest(venuesApi.prices, venueId);
  const items = useLast(list.data)?.items;
  const { refresh } = list;
  const reload = useCallback(() => {
    refresh();
    onChanged();
  }, [refresh, onChanged]);
  const calls = useMemo(() => priceCalls(venueId), [venueId]);
  const cat = useCatalogue<VenuePrice>(calls, reload, {
    saved: '价格已保存',
    off: '已停用，用户将不再看到此价格',
  });
  const ids = items?.map((p) => p.id) ?? [];
  return (
    <>
      <PricesHeader
        onAdd={() => cat.setEditing('new')}
        noneActive={Boolean(items && items.length > 0 && !items.some((p) => p.active))}
      />
      <ResourceList
        items={items}
        total={ids.length}
        page={1}
        pageSize={Math.max(1, ids.length)}
        loading={list.loading}
        error={list.error}
        onRetry={list.canRetry ? list.retry : undefined}
        onPage={() => {}}
        keyOf={(p) => p.id}
        emptyTitle="还没有价格"
        emptyDescription="添加价格后，用户扫码即可选择时长并支付。"
        renderItem={(p) => (
          <OrderedRow
            testId="price-row"
            name={p.name}
            active={p.active}
            detail={
              <>
                {p.minutes} 分钟 · <Money fen={p.price_fen} />
                {p.order_count > 0 && ` · ${p.order_count} 笔订单`}
              </>
            }
            {...cat.rowActions(p, ids)}
          />
        )}
      />
      <p className="px-4 text-xs text-base-content/60">
        用户扫码后按此顺序看到已启用的价格。修改价格不影响已支付的订单。
      </p>
      <Sheet
        open={cat.editing !== null}
        title={cat.editing === 'new' ? '添加价格' : '编辑价格'}
        onClose={() => cat.setEditing(null)}
      >
        {cat.editing !== null && (
          <PriceForm
            venueId={venueId}
            price={cat.editing === 'new' ? null : cat.editing}
            onDone={cat.onFormDone}
          />
        )}
      </Sheet>
      <DeleteConfirm
        what="价格"
        item={cat.deleting}
        refusedNote="已有订单的价格不能删除，可以改为停用。"
        {...cat.deleteProps}
      />
      {cat.toast}
    </>
  );
}

const priceCalls = (venueId: number): CatalogueCalls => ({
  order: (ids) => venuesApi.orderPrices(venueId, ids),
  setActive: (id, active) => venuesApi.updatePrice(venueId, id, { active }),
  remove: (id) => venuesApi.removePrice(venueId, id),
});

/** 服务价格 with 添加价格, and a warning when no price is active (users could not pay). */
function PricesHeader({ onAdd, noneActive }: { onAdd: () => void; noneActive: boolean }) {
  return (
    <>
      <div className="flex items-center justify-between px-4 pt-4">
        <h2 className="font-semibold">服务价格</h2>
        <button type="button" className="btn btn-primary btn-sm" onClick={onAdd}>
          添加价格
        </button>
      </div>
      {noneActive && (
        <p className="alert alert-warning mx-4 mt-3 text-sm" role="alert">
          没有启用的价格：用户扫码后无法选择和支付。
        </p>
      )}
    </>
  );
}
