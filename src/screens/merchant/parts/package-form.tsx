import { useForm } from '../../../app/use-form';
import { fenToYuanText } from '../../../domain/money.schema';
import { PackageFormSchema, type Package } from '../../../domain/packages.schema';
import { packagesApi } from '../../../http/packages-api';
import { ActiveField, StaffForm, TextField } from '../../shared/form-parts';

/**
 * Add or edit a recharge package: name, amount paid and bonus typed in yuan (sent as fen), active. A new package
 * belongs to the signed-in merchant, or for the admin to `merchantId`.
 */
export function PackageForm({
  pkg,
  merchantId,
  onDone,
}: {
  pkg: Package | null;
  merchantId?: number | undefined;
  onDone: (saved: boolean) => void;
}) {
  const form = useForm({
    schema: PackageFormSchema,
    values: {
      name: pkg?.name ?? '',
      pay_fen: pkg ? fenToYuanText(pkg.pay_fen) : '',
      bonus_fen: pkg ? fenToYuanText(pkg.bonus_fen) : '0',
      active: pkg?.active ?? true,
    },
    submit: (v) => {
      const body = PackageFormSchema.parse(v); // already valid: the machine checked it with the same schema
      return pkg
        ? packagesApi.update(pkg.id, body)
        : packagesApi.create({ ...body, merchant_id: merchantId });
    },
  });
  return (
    <StaffForm form={form} onDone={onDone}>
      <TextField form={form} name="name" label="套餐名称" placeholder="例如：充 100 送 15" maxLength={32} />
      <div className="flex gap-3">
        <TextField form={form} name="pay_fen" label="充值金额（元）" placeholder="100" inputMode="decimal" />
        <TextField form={form} name="bonus_fen" label="赠送金额（元）" placeholder="0" inputMode="decimal" />
      </div>
      <ActiveField form={form} label="启用（用户充值时可以选择）" />
    </StaffForm>
  );
}
