import type { ScreenProps } from '../../app/screen-registry';
import { loadMe } from '../../app/staff-features';
import { useRequest } from '../../app/use-request';
import type { Package } from '../../domain/packages.schema';
import { packagesApi } from '../../http/packages-api';
import { Money } from '../../ui';
import { ResourceList } from '../../ui/resource-list';
import { Sheet } from '../../ui/sheet';
import { AdminMerchantFilter } from '../shared/admin-merchant-filter';
import { DeleteConfirm } from '../shared/delete-confirm';
import { OrderedRow } from '../shared/ordered-row';
import { StaffPage } from '../shared/staff-page';
import { useCatalogue, type CatalogueCalls } from '../shared/use-catalogue';
import { useResourceList } from '../shared/use-resource-list';
import { PackageForm } from './parts/package-form';

/** A merchant has at most 50 packages (the server's limit), so one page holds them all. */
const PAGE_SIZE = 50;
type Shown = '' | 'true' | 'false';
type Filter = { active: Shown; page: number; merchant_id: number | undefined };

/**
 * `/merchant/packages`: the recharge packages end users choose from (pay, bonus); add and edit in a sheet,
 * activate or deactivate, move up or down, delete with a confirmation. The admin sees every merchant's.
 */
export default function PackagesScreen({ route }: ScreenProps) {
  const me = useRequest(loadMe);
  const isAdmin = me.data?.user.level === 1;
  const { filter, setFilter, list, data, listProps } = useResourceList(
    packagesApi.list,
    { active: '', page: 1, merchant_id: undefined } as Filter,
    PAGE_SIZE,
    (f) => ({ ...f, active: f.active || undefined }),
    true,
  );
  const cat = useCatalogue<Package>(PACKAGE_CALLS, list.refresh, {
    saved: '套餐已保存',
    off: '已停用，用户将不再看到此套餐',
  });
  // One merchant's whole list is on screen: only then can it be reordered.
  const oneMerchant = !isAdmin || filter.merchant_id !== undefined;
  const canOrder = oneMerchant && filter.active === '' && (data?.total ?? 0) <= PAGE_SIZE;
  const ids = data?.items.map((p) => p.id) ?? [];
  return (
    <StaffPage route={route} description="用户充值时可选的套餐：充值金额与赠送金额，按顺序展示已启用的套餐。">
      <ResourceList
        {...listProps}
        keyOf={(p) => p.id}
        toolbar={
          <Toolbar
            filter={filter}
            onFilter={setFilter}
            isAdmin={isAdmin}
            canAdd={oneMerchant}
            onAdd={() => cat.setEditing('new')}
          />
        }
        emptyTitle={filter.active ? '没有符合条件的套餐' : '还没有充值套餐'}
        emptyDescription={filter.active ? undefined : '点击“新增”添加套餐，例如“充 100 送 15”。'}
        renderItem={(p) => (
          <OrderedRow
            testId="package-row"
            name={p.name}
            active={p.active}
            detail={<Amounts pkg={p} showMerchant={isAdmin} />}
            {...cat.rowActions(p, ids, canOrder)}
          />
        )}
      />
      <Sheet
        open={cat.editing !== null}
        title={cat.editing === 'new' ? '新增套餐' : '编辑套餐'}
        onClose={() => cat.setEditing(null)}
      >
        {cat.editing !== null && (
          <PackageForm
            pkg={cat.editing === 'new' ? null : cat.editing}
            merchantId={filter.merchant_id}
            onDone={cat.onFormDone}
          />
        )}
      </Sheet>
      <DeleteConfirm
        what="套餐"
        item={cat.deleting}
        refusedNote="已有充值记录的套餐不能删除，可以改为停用。"
        {...cat.deleteProps}
      />
      {cat.toast}
    </StaffPage>
  );
}

const PACKAGE_CALLS: CatalogueCalls = {
  order: (ids) => packagesApi.order(ids),
  setActive: (id, active) => packagesApi.update(id, { active }),
  remove: (id) => packagesApi.remove(id),
};

/** The status filter, the admin's merchant filter, and 新增 (the admin adds for the merchant chosen). */
function Toolbar({
  filter,
  onFilter,
  isAdmin,
  canAdd,
  onAdd,
}: {
  filter: Filter;
  onFilter: (f: Filter) => void;
  isAdmin: boolean;
  canAdd: boolean;
  onAdd: () => void;
}) {
  return (
    <>
      <div className="flex gap-2">
        <select
          className="select flex-1"
          aria-label="状态"
          value={filter.active}
          onChange={(e) => onFilter({ ...filter, active: e.target.value as Shown, page: 1 })}
        >
          <option value="">全部套餐</option>
          <option value="true">启用中</option>
          <option value="false">已停用</option>
        </select>
        <button type="button" className="btn btn-primary btn-sm" disabled={!canAdd} onClick={onAdd}>
          新增
        </button>
      </div>
      {isAdmin && (
        <AdminMerchantFilter
          value={filter.merchant_id}
          onChange={(merchant_id) => onFilter({ ...filter, merchant_id, page: 1 })}
        />
      )}
      {!canAdd && <p className="text-xs text-base-content/60">新增套餐前，请先选择所属商户。</p>}
    </>
  );
}

/** 充 ¥100.00 送 ¥15.00 · 3 笔充值 (with the merchant's name for the admin). */
function Amounts({ pkg, showMerchant }: { pkg: Package; showMerchant: boolean }) {
  return (
    <>
      {showMerchant && `${pkg.merchant_name} · `}充 <Money fen={pkg.pay_fen} />
      {pkg.bonus_fen > 0 && (
        <>
          {' '}
          送 <Money fen={pkg.bonus_fen} className="text-success" />
        </>
      )}
      {pkg.order_count > 0 && ` · ${pkg.order_count} 笔充值`}
    </>
  );
}
