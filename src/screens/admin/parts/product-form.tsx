import { useForm } from '../../../app/use-form';
import { PRODUCT_CATEGORIES, ProductInputSchema, type Product } from '../../../domain/products.schema';
import { productsApi } from '../../../http/products-api';
import { SelectField, StaffForm, TextField } from '../../shared/form-parts';

/** Add or edit one device model; `onDone(true)` after a save, `onDone(false)` when the user leaves. */
export function ProductForm({
  product,
  onDone,
}: {
  product: Product | null;
  onDone: (saved: boolean) => void;
}) {
  const form = useForm({
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
  return (
    <StaffForm form={form} onDone={onDone}>
      <TextField form={form} name="name" label="型号名称" placeholder="请输入型号名称" maxLength={64} />
      <SelectField form={form} name="category" label="类别" options={PRODUCT_CATEGORIES} />
      <TextField
        form={form}
        name="description"
        label="说明"
        hint="选填，最多 500 字"
        placeholder="请输入说明"
        rows={3}
      />
    </StaffForm>
  );
}
