import { PRODUCT_CATEGORIES, type Product } from '../../../domain/products.schema';
import { StatusRow, StatusToggle } from '../../shared/list-parts';

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
    <StatusRow
      testId="product-row"
      name={p.name}
      off={p.status === 'retired'}
      onOpen={onOpen}
      actions={
        <>
          <StatusToggle
            active={p.status === 'active'}
            quiet
            onClick={() => onAction({ kind: p.status === 'active' ? 'retire' : 'restore', product: p })}
          />
          <button
            type="button"
            className="btn btn-ghost btn-sm text-error"
            onClick={() => onAction({ kind: 'delete', product: p })}
          >
            删除
          </button>
        </>
      }
    >
      <p className="text-xs text-base-content/60">
        {PRODUCT_CATEGORIES[p.category]} · {p.device_count} 台设备
      </p>
    </StatusRow>
  );
}
