import { useSelector } from '@xstate/react';
import { useEffect, useState } from 'react';
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
  const schema = adding ? MerchantCreateSchema : MerchantUpdateSchema;
  const { actor, view, change } = useForm({
    schema,
    values: adding ? NEW_MERCHANT : {},
    load: adding ? undefined : () => merchantsApi.get(id),
    submit: (v) =>
      adding
        ? merchantsApi.create(MerchantCreateSchema.parse(v))
        : merchantsApi.update(id, MerchantUpdateSchema.parse(v)),
  });
  const loadFailed = useSelector(actor, selectLoadFailed);
  /** The merchant as loaded (the owner shown, and whether this save disables it). */
  const initial = useSelector(actor, (s) => s.context.initial);
  const [confirmDisable, setConfirmDisable] = useState(false);
  useEffect(() => {
    if (view.saved || view.left) navigate(LIST);
  }, [view.saved, view.left, navigate]);

  if (loadFailed)
    return <ErrorState message={view.message ?? '加载失败'} onRetry={() => actor.send({ type: 'retry' })} />;
  if (view.loading) return <Loading />;

  const text = (k: string) => String(view.values[k] ?? '');
  const loaded = initial as Partial<Merchant>;
  const fee = view.values.fee_rate_bp;
  const submit = () => actor.send({ type: 'form.submit' });
  const input = (
    field: string,
    label: string,
    opts: { placeholder: string; hint?: string; max?: number },
  ) => (
    <FormField label={label} error={view.errors[field]} hint={opts.hint}>
      {(fid) => (
        <input
          id={fid}
          name={field}
          className="input w-full"
          value={text(field)}
          placeholder={opts.placeholder}
          maxLength={opts.max}
          autoComplete="off"
          onChange={(e) => change(field, e.target.value)}
        />
      )}
    </FormField>
  );
  return (
    <form
      className="m-4 space-y-3 rounded-box bg-base-100 p-4"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        // Disabling signs people out: ask first.
        if (!adding && view.values.status === 'disabled' && loaded.status !== 'disabled') {
          return setConfirmDisable(true);
        }
        submit();
      }}
    >
      {input('name', '商户名称', { placeholder: '如：星河共享自助', max: 64 })}
      {input('contact_name', '联系人', { placeholder: '负责人姓名', max: 32 })}
      {input('contact_phone', '联系电话', { placeholder: '手机或座机', max: 20 })}
      <FormField
        label="平台费率（基点）"
        error={view.errors.fee_rate_bp}
        hint={
          typeof fee === 'number' ? `每笔线上收款的 ${feeRatePercent(fee)}（600 基点 = 6%）` : '0 至 10000'
        }
      >
        {(fid) => (
          <input
            id={fid}
            name="fee_rate_bp"
            className="input w-full"
            inputMode="numeric"
            value={text('fee_rate_bp')}
            placeholder="600"
            onChange={(e) => change('fee_rate_bp', numberOrText(e.target.value))}
          />
        )}
      </FormField>
      {adding ? (
        <>
          {input('owner_username', '负责人登录账号', {
            placeholder: '3 至 32 位字母或数字',
            max: 32,
          })}
          {input('owner_password', '初始密码', {
            placeholder: '至少 8 位',
            hint: '请把登录账号和初始密码告知商户负责人',
            max: 128,
          })}
        </>
      ) : (
        <>
          <p className="text-sm text-base-content/70" data-testid="merchant-owner">
            负责人账号：{loaded.owner ? `${loaded.owner.username}（${loaded.owner.name}）` : '无'}
          </p>
          <FormField label="状态" error={view.errors.status}>
            {(fid) => (
              <select
                id={fid}
                name="status"
                className="select w-full"
                value={text('status')}
                onChange={(e) => change('status', e.target.value)}
              >
                {Object.entries(MERCHANT_STATUSES).map(([k, label]) => (
                  <option key={k} value={k}>
                    {label}
                  </option>
                ))}
              </select>
            )}
          </FormField>
        </>
      )}
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
          {view.submitting ? '保存中…' : adding ? '创建商户' : '保存'}
        </button>
      </div>
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
