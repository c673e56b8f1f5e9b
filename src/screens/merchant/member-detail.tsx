import { useState } from 'react';
import { useForm } from '../../app/use-form';
import { useRequest } from '../../app/use-request';
import { parseYuan } from '../../domain/money';
import { BonusCreditSchema, KIND_LABELS, type MerchantMember } from '../../domain/members.schema';
import { membersApi } from '../../http/people-api';
import { newIdempotencyKey } from '../../machines/pay.setup';
import { ConfirmDialog, ErrorState, Loading, Money } from '../../ui';
import { FormField } from '../../ui/form-field';
import { shortTime } from '../../ui/user/format';
import { StaffForm, TextField } from '../shared/form-parts';

/** A member's page at one merchant: balances, recent wallet entries and orders, and a bonus credit. */
export function MemberDetail({
  member,
  onDone,
}: {
  member: MerchantMember;
  onDone: (saved: boolean) => void;
}) {
  const detail = useRequest(() => membersApi.get(member.id, member.merchant_id));
  const [key] = useState(newIdempotencyKey);
  const [confirming, setConfirming] = useState(false);
  const form = useForm({
    schema: BonusCreditSchema,
    values: { amount_fen: undefined, note: '' },
    submit: (v) =>
      membersApi.bonus(member.id, { ...BonusCreditSchema.parse(v), merchant_id: member.merchant_id }, key),
  });
  const amount = form.view.values.amount_fen;
  if (detail.loading) return <Loading />;
  if (detail.error) return <ErrorState message={detail.error.message} onRetry={detail.retry} />;
  const d = detail.data;
  return (
    <div className="space-y-3">
      <p className="text-sm">
        余额 <Money fen={member.balance_fen} />
        （本金 <Money fen={member.principal_fen} />
        ，赠送 <Money fen={member.bonus_fen} />）
      </p>
      <h3 className="text-sm font-semibold">最近流水</h3>
      <ul className="max-h-40 space-y-1 overflow-y-auto text-xs" data-testid="member-entries">
        {d?.entries.map((e) => (
          <li key={e.id} className="flex justify-between">
            <span>
              {shortTime(e.created_at)} {KIND_LABELS[e.kind] ?? e.kind} {e.order_no ?? e.memo}
            </span>
            <Money fen={e.amount_fen} />
          </li>
        ))}
      </ul>
      <p className="text-xs text-base-content/60">
        订单 {d?.orders.length ?? 0} 笔 · 使用 {d?.sessions.length ?? 0} 次（最近 50 条）
      </p>
      <h3 className="text-sm font-semibold">赠送余额（补偿）</h3>
      <StaffForm form={form} onDone={onDone} submitLabel="赠送" onSubmit={() => setConfirming(true)}>
        <FormField label="金额（元）" error={form.view.errors.amount_fen}>
          {(id) => (
            <input
              id={id}
              className="input w-full"
              inputMode="decimal"
              placeholder="如 5"
              onChange={(e) => form.change('amount_fen', parseYuan(e.target.value) ?? e.target.value)}
            />
          )}
        </FormField>
        <TextField
          form={form}
          name="note"
          label="原因"
          placeholder="必填，如：设备故障补偿"
          maxLength={200}
        />
      </StaffForm>
      <ConfirmDialog
        open={confirming}
        title="确认赠送？"
        message={`向 ${member.nickname || `会员 ${member.id}`} 赠送 ${typeof amount === 'number' ? (amount / 100).toFixed(2) : ''} 元，计入赠送余额。`}
        onConfirm={() => {
          setConfirming(false);
          form.actor.send({ type: 'form.submit' });
        }}
        onCancel={() => setConfirming(false)}
      />
    </div>
  );
}
