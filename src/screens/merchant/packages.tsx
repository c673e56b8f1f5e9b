import { useCallback, useState } from 'react';
import type { ScreenProps } from '../../app/screen-registry';
import { loadMe } from '../../app/staff-features';
import { useRequest } from '../../app/use-request';
import type { Package } from '../../domain/packages.schema';
import { packagesApi } from '../../http/packages-api';
import { ConfirmDialog, Money } from '../../ui';
import { ResourceList } from '../../ui/resource-list';
import { Sheet } from '../../ui/sheet';
import { moved } from '../shared/move-buttons';
import { OrderedRow, useListActions } from '../shared/ordered-row';
import { AdminMerchantFilter } from '../shared/admin-merchant-filter';
import { StaffPage } from '../shared/staff-page';
import { useLast } from '../shared/use-last';
import { PackageForm } from './package-form';

/** A merchant has at most 50 packages (the server's limit), so one page holds them all. */
const PAGE_SIZE = 50;
type Shown = '' | 'true' | 'false';

/**
 * `/merchant/packages`: the recharge packages end users choose from (pay, bonus); add and edit in a sheet,
 * activate or deactivate, move up or down, delete with a confirmation. The admin sees every merchant's.
 */
export default function PackagesScreen({ route }: ScreenProps) {
  const me = useRequest(loadMe);
  const isAdmin = me.data?.user.level === 1;
  const [filter, setFilter] = useState({
    active: '' as Shown,
    page: 1,
    merchant_id: undefined as number | undefined,
  });
  const list = useRequest(packagesApi.list, {
    ...filter,
    active: filter.active || undefined,
    page_size: PAGE_SIZE,
  });
  const data = useLast(list.data);
  const items = data?.items;
  const [editing, setEditing] = useState<Package | 'new' | null>(null);
  const [deleting, setDeleting] = useState<Package | null>(null);
  const { busy, run, toast, notify } = useListActions(list.refresh);
  const { refresh } = list;
  const onFormDone = useCallback(
    (saved: boolean) => {
      setEditing(null);
      if (saved) {
        notify('套餐已保存');
        refresh();
      }
    },
    [notify, refresh],
  );
  // One merchant's whole list is on screen: only then can it be reordered.
  const oneMerchant = !isAdmin || filter.merchant_id !== undefined;
  const canOrder = oneMerchant && filter.active === '' && (data?.total ?? 0) <= PAGE_SIZE;
  const ids = items?.map((p) => p.id) ?? [];

  const toolbar = (
    <>
      <div className="flex gap-2">
        <select
          className="select flex-1"
          aria-label="状态"
          value={filter.active}
          onChange={(e) => setFilter({ ...filter, active: e.target.value as Shown, page: 1 })}
        >
          <option value="">全部套餐</option>
          <option value="true">启用中</option>
          <option value="false">已停用</option>
        </select>
        <button
          type="button"
          className="btn btn-primary btn-sm"
          disabled={!oneMerchant}
          onClick={() => setEditing('new')}
        >
          新增
        </button>
      </div>
      {isAdmin && (
        <AdminMerchantFilter
          value={filter.merchant_id}
          onChange={(merchant_id) => setFilter({ ...filter, merchant_id, page: 1 })}
        />
      )}
      {!oneMerchant && <p className="text-xs text-base-content/60">新增套餐前，请先选择所属商户。</p>}
    </>
  );
  return (
    <StaffPage route={route} description="用户充值时可选的套餐：充值金额与赠送金额，按顺序展示已启用的套餐。">
      <ResourceList
        items={items}
        total={data?.total ?? 0}
        page={filter.page}
        pageSize={PAGE_SIZE}
        loading={list.loading}
        error={list.error}
        onRetry={list.canRetry ? list.retry : undefined}
        onPage={(page) => setFilter({ ...filter, page })}
        keyOf={(p) => p.id}
        toolbar={toolbar}
        emptyTitle={filter.active ? '没有符合条件的套餐' : '还没有充值套餐'}
        emptyDescription={filter.active ? undefined : '点击“新增”添加套餐，例如“充 100 送 15”。'}
        renderItem={(p) => (
          <OrderedRow
            testId="package-row"
            name={p.name}
            active={p.active}
            detail={
              <>
                {isAdmin && `${p.merchant_name} · `}充 <Money fen={p.pay_fen} />
                {p.bonus_fen > 0 && (
                  <>
                    {' '}
                    送 <Money fen={p.bonus_fen} className="text-success" />
                  </>
                )}
                {p.order_count > 0 && ` · ${p.order_count} 笔充值`}
              </>
            }
            order={
              canOrder
                ? {
                    index: ids.indexOf(p.id),
                    count: ids.length,
                    onMove: (d) =>
                      void run(() => packagesApi.order(moved(ids, ids.indexOf(p.id), d)), '顺序已更新'),
                  }
                : undefined
            }
            busy={busy}
            onOpen={() => setEditing(p)}
            onToggle={(active) =>
              void run(
                () => packagesApi.update(p.id, { active }),
                active ? '已启用' : '已停用，用户将不再看到此套餐',
              )
            }
            onDelete={() => setDeleting(p)}
          />
        )}
      />
      <Sheet
        open={editing !== null}
        title={editing === 'new' ? '新增套餐' : '编辑套餐'}
        onClose={() => setEditing(null)}
      >
        {editing !== null && (
          <PackageForm
            pkg={editing === 'new' ? null : editing}
            merchantId={filter.merchant_id}
            onDone={onFormDone}
          />
        )}
      </Sheet>
      <ConfirmDialog
        open={deleting !== null}
        danger
        title="删除套餐？"
        message={
          deleting
            ? `删除“${deleting.name}”后用户将不再看到它。已有充值记录的套餐不能删除，可以改为停用。`
            : undefined
        }
        confirmLabel="删除"
        onConfirm={() => {
          const p = deleting!;
          setDeleting(null);
          void run(() => packagesApi.remove(p.id), '已删除');
        }}
        onCancel={() => setDeleting(null)}
      />
      {toast}
    </StaffPage>
  );
}
