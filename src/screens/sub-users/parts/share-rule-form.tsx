import { useForm } from '../../../app/use-form';
import { useRequest } from '../../../app/use-request';
import {
  ShareRuleInputSchema,
  ShareRuleUpdateSchema,
  bpFromPercent,
  type ShareRule,
} from '../../../domain/profit-sharing.schema';
import { profitSharingApi, subUsersApi } from '../../../http/people-api';
import { venuesApi } from '../../../http/venues-api';
import { FormField } from '../../../ui/form-field';
import { Sheet } from '../../../ui/sheet';
import { AdminMerchantFilter } from '../../shared/admin-merchant-filter';
import { StaffForm } from '../../shared/form-parts';

/** The venues and active partners a new rule may name: the merchant's own (the admin's: the chosen merchant's). */
const loadOptions = (merchant_id: number | undefined) =>
  Promise.all([
    venuesApi.list({ page_size: 100, merchant_id }),
    subUsersApi.list({ role: 'partner', status: 'active', page_size: 100, merchant_id }),
  ]);

/** The rules list's toolbar: the admin's merchant picker, and the add button (the admin's once it has chosen). */
export function RulesToolbar(props: {
  isAdmin: boolean;
  merchantId: number | undefined;
  canAdd: boolean;
  onMerchant: (id: number | undefined) => void;
  onAdd: () => void;
}) {
  return (
    <div className="flex flex-col gap-2">
      <div className="flex items-center gap-2">
        {props.isAdmin && (
          <div className="min-w-0 flex-1">
            <AdminMerchantFilter value={props.merchantId} onChange={props.onMerchant} />
          </div>
        )}
        <button
          type="button"
          className="btn btn-primary btn-sm ml-auto"
          disabled={!props.canAdd}
          onClick={props.onAdd}
        >
          新增规则
        </button>
      </div>
      {props.isAdmin && props.merchantId === undefined && (
        <p className="text-xs text-base-content/60">
          新增规则前，请先选择商户（规则使用该商户的场地和合伙人）。
        </p>
      )}
    </div>
  );
}

/** Add a rule (venue, partner, ratio in %) or change a rule's ratio. */
export function ShareRuleForm({
  rule,
  merchantId,
  onDone,
}: {
  rule: ShareRule | null;
  /** The admin's chosen merchant: a new rule's venues and partners are its own. */
  merchantId?: number;
  onDone: (saved: boolean) => void;
}) {
  const options = useRequest(loadOptions, merchantId);
  const form = useForm({
    schema: rule ? ShareRuleUpdateSchema : ShareRuleInputSchema,
    values: rule
      ? { ratio_bp: rule.ratio_bp }
      : { venue_id: undefined, partner_account_id: undefined, ratio_bp: undefined },
    submit: (v) =>
      rule
        ? profitSharingApi.update(rule.id, ShareRuleUpdateSchema.parse(v))
        : profitSharingApi.create(ShareRuleInputSchema.parse(v)),
  });
  const [venues, partners] = options.data ?? [undefined, undefined];
  const pick = (name: string, label: string, items: { id: number; name: string }[] | undefined) => (
    <FormField label={label} error={form.view.errors[name]}>
      {(id) => (
        <select
          id={id}
          className="select w-full"
          value={String(form.view.values[name] ?? '')}
          onChange={(e) => form.change(name, e.target.value ? Number(e.target.value) : undefined)}
        >
          <option value="">{items ? '请选择' : '加载中…'}</option>
          {items?.map((x) => (
            <option key={x.id} value={x.id}>
              {x.name}
            </option>
          ))}
        </select>
      )}
    </FormField>
  );
  const ratio = form.view.values.ratio_bp;
  return (
    <StaffForm form={form} onDone={onDone}>
      {rule ? (
        <p className="text-sm text-base-content/60">
          {rule.venue_name} · {rule.partner_name}
        </p>
      ) : (
        <>
          {pick('venue_id', '场地', venues?.items)}
          {pick('partner_account_id', '合伙人', partners?.items)}
        </>
      )}
      <FormField
        label="分润比例（%）"
        error={form.view.errors.ratio_bp}
        hint="占该场地线上净收入的比例，同一场地合计不超过 100%；只影响此后的支付"
      >
        {(id) => (
          <input
            id={id}
            className="input w-full"
            inputMode="decimal"
            defaultValue={typeof ratio === 'number' ? String(ratio / 100) : ''}
            placeholder="如 20 或 12.5"
            onChange={(e) => form.change('ratio_bp', bpFromPercent(e.target.value))}
          />
        )}
      </FormField>
    </StaffForm>
  );
}

/** The add / change sheet: `editing` is the rule to change, `new`, or null (closed). */
export function RuleSheet(props: {
  editing: ShareRule | 'new' | null;
  merchantId: number | undefined;
  onClose: () => void;
  onDone: (saved: boolean) => void;
}) {
  const { editing } = props;
  return (
    <Sheet
      open={editing !== null}
      title={editing === 'new' ? '新增分润规则' : '修改分润比例'}
      onClose={props.onClose}
    >
      {editing !== null && (
        <ShareRuleForm
          rule={editing === 'new' ? null : editing}
          merchantId={props.merchantId}
          onDone={props.onDone}
        />
      )}
    </Sheet>
  );
}
