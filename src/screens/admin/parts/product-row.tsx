import { PRODUCT_CATEGORIES, type Product } from '../../../domain/products.schema';

/** A device model's row: name (opens the edit sheet), category and device count, 停用/启用 and 删除. */
export function ProductRow({
  product: p,
  onOpen,
  onAction,
}: {
  product: Product;
  onOpen: () => void;
  onAction: (pending: { kind: 'retire' | 'restore' | 'delete'; product: Product }) => void;
}) {
  return (
    <div className="flex items-center gap-3 p-3" data-testid="product-row">
      <button type="button" className="min-w-0 flex-1 text-left" onClick={onOpen}>
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
        onClick={() => onAction({ kind: p.status === 'active' ? 'retire' : 'restore', product: p })}
      >
        {p.status === 'active' ? '停用' : '启用'}
      </button>
      <button
        type="button"
        className="btn btn-ghost btn-sm text-error"
        onClick={() => onAction({ kind: 'delete', product: p })}
      >
        删除
      </button>
    </div>
  );
}
