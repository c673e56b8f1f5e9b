import { useCallback, useState } from 'react';
import type { ScreenProps } from '../../app/screen-registry';
import { useRequest } from '../../app/use-request';
import {
  PRODUCT_CATEGORIES,
  PRODUCT_STATUSES,
  type Product,
  type ProductStatus,
} from '../../domain/products.schema';
import { toOutcome } from '../../http/outcome';
import { productsApi } from '../../http/products-api';
import { ConfirmDialog, Toast } from '../../ui';
import { ResourceList } from '../../ui/resource-list';
import { Sheet } from '../../ui/sheet';
import { StaffPage } from '../shared/staff-page';
import { ProductForm } from './parts/product-form';

const PAGE_SIZE = 20;
type Pending = { kind: 'retire' | 'restore' | 'delete'; product: Product } | null;

/** `/admin/products`: device models; add and edit in a sheet, retire or delete with a confirmation. */
export default function ProductsScreen({ route }: ScreenProps) {
  const [filter, setFilter] = useState({ q: '', status: '' as ProductStatus | '', page: 1 });
  const list = useRequest(productsApi.list, {
    ...filter,
    page_size: PAGE_SIZE,
    status: filter.status || undefined,
  });
  const [editing, setEditing] = useState<Product | 'new' | null>(null);
  const [pending, setPending] = useState<Pending>(null);
  const [toast, setToast] = useState<{ message: string; kind: 'success' | 'error' } | null>(null);
  const onFormDone = useCallback(
    (saved: boolean) => {
      setEditing(null);
      if (saved) {
        setToast({ message: '已保存', kind: 'success' });
        list.refresh();
      }
    },
    [list],
  );
  async function confirmPending() {
    if (!pending) return;
    const { kind, product } = pending;
    const out = await toOutcome<unknown>(() =>
      kind === 'delete'
        ? productsApi.remove(product.id)
        : productsApi.update(product.id, { status: kind === 'retire' ? 'retired' : 'active' }),
    );
    setPending(null);
    setToast(
      out.ok
        ? { message: kind === 'delete' ? '已删除' : '已更新', kind: 'success' }
        : { message: out.error.message, kind: 'error' },
    );
    list.refresh();
  }
  const toolbar = (
    <div className="flex gap-2">
      <input
        type="search"
        className="input flex-1"
        placeholder="搜索型号名称"
        aria-label="搜索型号名称"
        value={filter.q}
        onChange={(e) => setFilter({ ...filter, q: e.target.value, page: 1 })}
      />
      <select
        className="select w-24"
        aria-label="状态"
        value={filter.status}
        onChange={(e) => setFilter({ ...filter, status: e.target.value as ProductStatus | '', page: 1 })}
      >
        <option value="">全部</option>
        {Object.entries(PRODUCT_STATUSES).map(([k, label]) => (
          <option key={k} value={k}>
            {label}
          </option>
        ))}
      </select>
      <button type="button" className="btn btn-primary btn-sm" onClick={() => setEditing('new')}>
        新增
      </button>
    </div>
  );
  return (
    <StaffPage route={route} description="平台统一维护的设备型号（如充电桩、按摩椅），供商户添加设备时选择。">
      <ResourceList
        items={list.data?.items}
        total={list.data?.total ?? 0}
        page={filter.page}
        pageSize={PAGE_SIZE}
        loading={list.loading}
        error={list.error}
        onRetry={list.canRetry ? list.retry : undefined}
        onPage={(page) => setFilter({ ...filter, page })}
        keyOf={(p) => p.id}
        toolbar={toolbar}
        emptyTitle="暂无设备型号"
        emptyDescription="点击“新增”添加第一个型号。"
        renderItem={(p) => (
          <div className="flex items-center gap-3 p-3" data-testid="product-row">
            <button type="button" className="min-w-0 flex-1 text-left" onClick={() => setEditing(p)}>
              <p className="truncate font-medium">
                {p.name}
                {p.status === 'retired' && <span className="ml-2 text-xs text-base-content/50">已停用</span>}
              </p>
              <p className="text-xs text-base-content/60">
                {PRODUCT_CATEGORIES[p.category]} · {p.device_count} 台设备
              </p>
            </button>
            <button
              type="button"
              className="btn btn-ghost btn-sm"
              onClick={() => setPending({ kind: p.status === 'active' ? 'retire' : 'restore', product: p })}
            >
              {p.status === 'active' ? '停用' : '启用'}
            </button>
            <button
              type="button"
              className="btn btn-ghost btn-sm text-error"
              onClick={() => setPending({ kind: 'delete', product: p })}
            >
              删除
            </button>
          </div>
        )}
      />
      <Sheet
        open={editing !== null}
        title={editing === 'new' ? '新增设备型号' : '编辑设备型号'}
        onClose={() => setEditing(null)}
      >
        {editing !== null && <ProductForm product={editing === 'new' ? null : editing} onDone={onFormDone} />}
      </Sheet>
      <ConfirmDialog
        open={pending !== null}
        danger={pending?.kind === 'delete'}
        title={
          pending?.kind === 'delete'
            ? '删除设备型号？'
            : pending?.kind === 'retire'
              ? '停用设备型号？'
              : '重新启用设备型号？'
        }
        message={
          pending?.kind === 'retire'
            ? '停用后商户添加设备时不再能选择此型号，已有设备不受影响。'
            : pending?.product.name
        }
        onConfirm={() => void confirmPending()}
        onCancel={() => setPending(null)}
      />
      {toast && <Toast message={toast.message} kind={toast.kind} onClose={() => setToast(null)} />}
    </StaffPage>
  );
}
