import { useEffect } from 'react';
import { useForm } from '../../../app/use-form';
import { PRODUCT_CATEGORIES, ProductInputSchema, type Product } from '../../../domain/products.schema';
import { productsApi } from '../../../http/products-api';
import { ConfirmDialog } from '../../../ui';
import { FormField } from '../../../ui/form-field';

/** Add or edit one device model; `onDone(true)` after a save, `onDone(false)` when the user leaves. */
export function ProductForm({
  product,
  onDone,
}: {
  product: Product | null;
  onDone: (saved: boolean) => void;
}) {
  const { actor, view, change } = useForm({
    schema: ProductInputSchema,
    values: {
      name: product?.name ?? '',
      category: product?.category ?? 'charger',
      description: product?.description ?? '',
    },
    submit: (v) => {
      const body = ProductInputSchema.parse(v); // already valid: the machine checked it with the same schema
      return product ? productsApi.update(product.id, body) : productsApi.create(body);
    },
  });
  useEffect(() => {
    if (view.saved || view.left) onDone(view.saved);
  }, [view.saved, view.left, onDone]);
  const text = (k: string) => String(view.values[k] ?? '');
  return (
    <form
      className="space-y-3"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        actor.send({ type: 'form.submit' });
      }}
    >
      <FormField label="型号名称" error={view.errors.name}>
        {(id) => (
          <input
            id={id}
            className="input w-full"
            value={text('name')}
            placeholder="请输入型号名称"
            maxLength={64}
            onChange={(e) => change('name', e.target.value)}
          />
        )}
      </FormField>
      <FormField label="类别" error={view.errors.category}>
        {(id) => (
          <select
            id={id}
            className="select w-full"
            value={text('category')}
            onChange={(e) => change('category', e.target.value)}
          >
            {Object.entries(PRODUCT_CATEGORIES).map(([k, label]) => (
              <option key={k} value={k}>
                {label}
              </option>
            ))}
          </select>
        )}
      </FormField>
      <FormField label="说明" error={view.errors.description} hint="选填，最多 500 字">
        {(id) => (
          <textarea
            id={id}
            className="input h-auto w-full py-2"
            rows={3}
            value={text('description')}
            placeholder="请输入说明"
            onChange={(e) => change('description', e.target.value)}
          />
        )}
      </FormField>
      {view.message && (
        <p className="alert alert-error text-sm" role="alert">
          {view.message}
        </p>
      )}
      <div className="flex gap-2 pt-2">
        <button type="button" className="btn flex-1" onClick={() => actor.send({ type: 'form.leave' })}>
          取消
        </button>
        <button type="submit" className="btn btn-primary flex-1" disabled={view.submitting}>
          {view.submitting ? '保存中…' : '保存'}
        </button>
      </div>
      <ConfirmDialog
        open={view.asksToLeave}
        title="放弃未保存的修改？"
        message="离开后，本次填写的内容不会保存。"
        confirmLabel="放弃修改"
        danger
        onConfirm={() => actor.send({ type: 'leave.confirm' })}
        onCancel={() => actor.send({ type: 'leave.cancel' })}
      />
    </form>
  );
}
