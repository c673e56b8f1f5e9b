import { useSelector } from '@xstate/react';
import { useCallback, useState } from 'react';
import { useLocation } from 'wouter';
import type { ScreenProps } from '../../app/screen-registry';
import { useForm } from '../../app/use-form';
import {
  MERCHANT_DISABLE_WARNING,
  MERCHANT_STATUSES,
  MerchantCreateSchema,
  MerchantUpdateSchema,
  feeRatePercent,
  type Merchant,
} from '../../domain/merchants.schema';
import { merchantsApi } from '../../http/merchants-api';
import { selectLoadFailed } from '../../machines/shared/form.selectors';
import { ConfirmDialog, ErrorState, Loading } from '../../ui';
import { FormField } from '../../ui/form-field';
import { SelectField, StaffForm, TextField, type Form } from '../shared/form-parts';
import { StaffPage } from '../shared/staff-page';

const LIST = '/admin/merchants';

const NEW_MERCHANT = {
  name: '',
  contact_name: '',
  contact_phone: '',
  fee_rate_bp: 600,
  owner_username: '',
  owner_password: '',
};

/** A whole number typed into a text field becomes a number; anything else stays text for the schema to refuse. */
const numberOrText = (v: string) => (/^\d{1,6}$/.test(v.trim()) ? Number(v.trim()) : v);

/**
 * `/admin/merchants/add` and `/admin/merchants/{id}`: one form. Adding also creates the owner's sign-in (username
 * and initial password); editing changes the contact, the platform fee rate and the status.
 */
export default function MerchantEditScreen({ route, params }: ScreenProps) {
  const id = params.id === undefined ? null : Number(params.id);
  return (
    <StaffPage
      route={route}
      description={
        id === null
          ? '填写商户信息与负责人的登录账号，保存后负责人即可用该账号登录。'
          : '修改商户的联系人、平台费率与营业状态。'
      }
    >
      {id !== null && !(Number.isInteger(id) && id > 0) ? (
        <ErrorState message="商户不存在" />
      ) : (
        <MerchantForm id={id} />
      )}
    </StaffPage>
  );
}

function MerchantForm({ id }: { id: number | null }) {
  const [, navigate] = useLocation();
  const adding = id === null;
  const form = useForm({
    schema: adding ? MerchantCreateSchema : MerchantUpdateSchema,
    values: adding ? NEW_MERCHANT : {},
    load: adding ? undefined : () => merchantsApi.get(id),
    submit: (v) =>
      adding
        ? merchantsApi.create(MerchantCreateSchema.parse(v))
        : merchantsApi.update(id, MerchantUpdateSchema.parse(v)),
  });
  const { actor, view } = form;
  const loadFailed = useSelector(actor, selectLoadFailed);
  /** The merchant as loaded (the owner shown, and whether this save disables it). */
  const loaded = useSelector(actor, (s) => s.context.initial) as Partial<Merchant>;
  const [confirmDisable, setConfirmDisable] = useState(false);
  const onDone = useCallback(() => navigate(LIST), [navigate]);

  if (loadFailed)
    return <ErrorState message={view.message ?? '加载失败'} onRetry={() => actor.send({ type: 'retry' })} />;
  if (view.loading) return <Loading />;

  const submit = () => actor.send({ type: 'form.submit' });
  return (
    <StaffForm
      form={form}
      onDone={onDone}
      className="m-4 space-y-3 rounded-box bg-base-100 p-4"
      submitLabel={adding ? '创建商户' : '保存'}
      // Disabling signs people out: ask first.
      onSubmit={() =>
        !adding && view.values.status === 'disabled' && loaded.status !== 'disabled'
          ? setConfirmDisable(true)
          : submit()
      }
    >
      <TextField form={form} name="name" label="商户名称" placeholder="如：星河共享自助" maxLength={64} />
      <TextField form={form} name="contact_name" label="联系人" placeholder="负责人姓名" maxLength={32} />
      <TextField form={form} name="contact_phone" label="联系电话" placeholder="手机或座机" maxLength={20} />
      <FeeRateField form={form} />
      {adding ? <OwnerSignInFields form={form} /> : <OwnerAndStatus form={form} loaded={loaded} />}
      <ConfirmDialog
        open={confirmDisable}
        danger
        title="停用该商户？"
        message={MERCHANT_DISABLE_WARNING}
        confirmLabel="停用"
        onConfirm={() => {
          setConfirmDisable(false);
          submit();
        }}
        onCancel={() => setConfirmDisable(false)}
      />
    </StaffForm>
  );
}

/** The platform fee in basis points, with what it means as a percentage. */
function FeeRateField({ form }: { form: Form }) {
  const fee = form.view.values.fee_rate_bp;
  return (
    <FormField
      label="平台费率（基点）"
      error={form.view.errors.fee_rate_bp}
      hint={typeof fee === 'number' ? `每笔线上收款的 ${feeRatePercent(fee)}（600 基点 = 6%）` : '0 至 10000'}
    >
      {(fid) => (
        <input
          id={fid}
          className="input w-full"
          inputMode="numeric"
          value={String(fee ?? '')}
          placeholder="600"
          onChange={(e) => form.change('fee_rate_bp', numberOrText(e.target.value))}
        />
      )}
    </FormField>
  );
}

/** A new merchant's owner: the sign-in name and initial password. */
function OwnerSignInFields({ form }: { form: Form }) {
  return (
    <>
      <TextField
        form={form}
        name="owner_username"
        label="负责人登录账号"
        placeholder="3 至 32 位字母或数字"
        maxLength={32}
      />
      <TextField
        form={form}
        name="owner_password"
        label="初始密码"
        placeholder="至少 8 位"
        hint="请把登录账号和初始密码告知商户负责人"
        maxLength={128}
      />
    </>
  );
}

/** An existing merchant: its owner's account (read only) and its status. */
function OwnerAndStatus({ form, loaded }: { form: Form; loaded: Partial<Merchant> }) {
  return (
    <>
      <p className="text-sm text-base-content/70" data-testid="merchant-owner">
        负责人账号：{loaded.owner ? `${loaded.owner.username}（${loaded.owner.name}）` : '无'}
      </p>
      <SelectField form={form} name="status" label="状态" options={MERCHANT_STATUSES} />
    </>
  );
}
