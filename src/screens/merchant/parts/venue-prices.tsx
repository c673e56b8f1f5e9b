import { useCallback, useState } from 'react';
import { useRequest } from '../../../app/use-request';
import type { VenuePrice } from '../../../domain/venues.schema';
import { venuesApi } from '../../../http/venues-api';
import { ConfirmDialog, Money } from '../../../ui';
import { ResourceList } from '../../../ui/resource-list';
import { Sheet } from '../../../ui/sheet';
import { moved } from '../../shared/move-buttons';
import { OrderedRow, useListActions } from '../../shared/ordered-row';
import { useLast } from '../../shared/use-last';
import { PriceForm } from './price-form';

/**
 * The service prices of one venue: add and edit in a sheet, activate or deactivate, move up or down (the order end
 * users see on the pay page), delete with a confirmation. `onChanged` tells the venue's card to refresh its counts.
 */
export function VenuePrices({ venueId, onChanged }: { venueId: number; onChanged: () => void }) {
  const list = useRequest(venuesApi.prices, venueId);
  const items = useLast(list.data)?.items;
  const [editing, setEditing] = useState<VenuePrice | 'new' | null>(null);
  const [deleting, setDeleting] = useState<VenuePrice | null>(null);
  const { refresh } = list;
  const reload = useCallback(() => {
    refresh();
    onChanged();
  }, [refresh, onChanged]);
  const { busy, run, toast, notify } = useListActions(reload);
  const onFormDone = useCallback(
    (saved: boolean) => {
      setEditing(null);
      if (saved) {
        notify('价格已保存');
        reload();
      }
    },
    [notify, reload],
  );
  const ids = items?.map((p) => p.id) ?? [];
  const activeCount = items?.filter((p) => p.active).length ?? 0;
  return (
    <>
      <div className="flex items-center justify-between px-4 pt-4">
        <h2 className="font-semibold">服务价格</h2>
        <button type="button" className="btn btn-primary btn-sm" onClick={() => setEditing('new')}>
          添加价格
        </button>
      </div>
      {items && items.length > 0 && activeCount === 0 && (
        <p className="alert alert-warning mx-4 mt-3 text-sm" role="alert">
          没有启用的价格：用户扫码后无法选择和支付。
        </p>
      )}
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
            order={{
              index: ids.indexOf(p.id),
              count: ids.length,
              onMove: (d) =>
                void run(
                  () => venuesApi.orderPrices(venueId, moved(ids, ids.indexOf(p.id), d)),
                  '顺序已更新',
                ),
            }}
            busy={busy}
            onOpen={() => setEditing(p)}
            onToggle={(active) =>
              void run(
                () => venuesApi.updatePrice(venueId, p.id, { active }),
                active ? '已启用' : '已停用，用户将不再看到此价格',
              )
            }
            onDelete={() => setDeleting(p)}
          />
        )}
      />
      <p className="px-4 text-xs text-base-content/60">
        用户扫码后按此顺序看到已启用的价格。修改价格不影响已支付的订单。
      </p>
      <Sheet
        open={editing !== null}
        title={editing === 'new' ? '添加价格' : '编辑价格'}
        onClose={() => setEditing(null)}
      >
        {editing !== null && (
          <PriceForm venueId={venueId} price={editing === 'new' ? null : editing} onDone={onFormDone} />
        )}
      </Sheet>
      <ConfirmDialog
        open={deleting !== null}
        danger
        title="删除价格？"
        message={
          deleting
            ? `删除“${deleting.name}”后用户将不再看到它。已有订单的价格不能删除，可以改为停用。`
            : undefined
        }
        confirmLabel="删除"
        onConfirm={() => {
          const p = deleting!;
          setDeleting(null);
          void run(() => venuesApi.removePrice(venueId, p.id), '已删除');
        }}
        onCancel={() => setDeleting(null)}
      />
      {toast}
    </>
  );
}
