import { useCallback, useState } from 'react';
import type { ScreenProps } from '../../app/screen-registry';
import { useResourceList } from '../shared/use-resource-list';
import { PRODUCT_STATUSES, type Product, type ProductStatus } from '../../domain/products.schema';
import { toOutcome } from '../../http/outcome';
import { productsApi } from '../../http/products-api';
import { ConfirmDialog, Toast } from '../../ui';
import { ResourceList } from '../../ui/resource-list';
import { Sheet } from '../../ui/sheet';
import { SearchSelectToolbar } from '../shared/list-parts';
import { StaffPage } from '../shared/staff-page';
import { useEditing } from '../shared/use-editing';
import { ProductForm } from './parts/product-form';
import { ProductRow } from './parts/product-row';

const PAGE_SIZE = 20;
type Pending = { kind: 'retire' | 'restore' | 'delete'; product: Product } | null;
type Notice = { message: string; kind: 'success' | 'error' } | null;
type Filter = { q: string; status: ProductStatus | ''; page: number };

/** `/admin/products`: device models; add and edit in a sheet, retire or delete with a confirmation. */
export default function ProductsScreen({ route }: ScreenProps) {
  const { filter, refilter, list, listProps } = useResourceList(
    productsApi.list,
    { q: '', status: '', page: 1 } as Filter,
    PAGE_SIZE,
    (f) => ({ ...f, status: f.status || undefined }),
  );
  const [pending, setPending] = useState<Pending>(null);
  const [toast, setToast] = useState<Notice>(null);
  const saved = useCallback((message: string) => setToast({ message, kind: 'success' }), []);
  const { editing, setEditing, onFormDone } = useEditing<Product>('已保存', saved, list.refresh);
  const onConfirmed = (notice: Notice) => {
    setPending(null);
    setToast(notice);
    list.refresh();
  };
  return (
    <StaffPage route={route} description="平台统一维护的设备型号（如充电桩、按摩椅），供商户添加设备时选择。">
      <ResourceList
        {...listProps}
        keyOf={(p) => p.id}
        toolbar={
          <SearchSelectToolbar
            search={{
              value: filter.q,
              placeholder: '搜索型号名称',
              label: '搜索型号名称',
              onChange: (q) => refilter({ q }),
            }}
            select={{
              value: filter.status,
              label: '状态',
              options: PRODUCT_STATUSES,
              onChange: (status) => refilter({ status }),
            }}
            onAdd={() => setEditing('new')}
          />
        }
        emptyTitle="暂无设备型号"
        emptyDescription="点击“新增”添加第一个型号。"
        renderItem={(p) => <ProductRow product={p} onOpen={() => setEditing(p)} onAction={setPending} />}
      />
      <Sheet
        open={editing !== null}
        title={editing === 'new' ? '新增设备型号' : '编辑设备型号'}
        onClose={() => setEditing(null)}
      >
        {editing !== null && <ProductForm product={editing === 'new' ? null : editing} onDone={onFormDone} />}
      </Sheet>
      <PendingConfirm pending={pending} onDone={onConfirmed} onCancel={() => setPending(null)} />
      {toast && <Toast message={toast.message} kind={toast.kind} onClose={() => setToast(null)} />}
    </StaffPage>
  );
}

/** Retire, restore or delete the model after a confirmation; `onDone` with the toast to show. */
function PendingConfirm({
  pending,
  onDone,
  onCancel,
}: {
  pending: Pending;
  onDone: (notice: Notice) => void;
  onCancel: () => void;
}) {
  async function confirm() {
    if (!pending) return;
    const { kind, product } = pending;
    const out = await toOutcome<unknown>(() =>
      kind === 'delete'
        ? productsApi.remove(product.id)
        : productsApi.update(product.id, { status: kind === 'retire' ? 'retired' : 'active' }),
    );
    onDone(
      out.ok
        ? { message: kind === 'delete' ? '已删除' : '已更新', kind: 'success' }
        : { message: out.error.message, kind: 'error' },
    );
  }
  return (
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
      onConfirm={() => void confirm()}
      onCancel={onCancel}
    />
  );
}
