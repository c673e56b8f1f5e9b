import { useState } from 'react';
import { useForm } from '../../../app/use-form';
import { parseYuan } from '../../../domain/money';
import { BonusCreditSchema, type MerchantMember } from '../../../domain/members.schema';
import { membersApi } from '../../../http/people-api';
import { newIdempotencyKey } from '../../../domain/idempotency-key';
import { ConfirmDialog, Money } from '../../../ui';
import { FormField } from '../../../ui/form-field';
import { StaffForm, TextField } from '../../shared/form-parts';
import { MemberHistory } from './member-history';

/**
 * A member's page at one merchant: balances, wallet entries, orders and sessions (each paged), and a bonus credit.
 * The admin (`showMerchant`) is told which merchant the balances, records and credit belong to.
 */
export function MemberDetail({
  member,
  showMerchant = false,
  onDone,
}: {
  member: MerchantMember;
  showMerchant?: boolean;
  onDone: (saved: boolean) => void;
}) {
  const [key] = useState(newIdempotencyKey);
  const [confirming, setConfirming] = useState(false);
  const form = useForm({
    schema: BonusCreditSchema,
    values: { amount_fen: undefined, note: '' },
    submit: (v) =>
      membersApi.bonus(member.id, { ...BonusCreditSchema.parse(v), merchant_id: member.merchant_id }, key),
  });
  const amount = form.view.values.amount_fen;
  return (
    <div className="space-y-3">
      {showMerchant && (
        <p className="text-sm" data-testid="member-merchant">
          商户：<span className="font-medium">{member.merchant_name}</span>
          <span className="text-base-content/60">（以下余额、流水、订单和使用记录均为该商户的）</span>
        </p>
      )}
      <p className="text-sm">
        余额 <Money fen={member.balance_fen} />
        （本金 <Money fen={member.principal_fen} />
        ，赠送 <Money fen={member.bonus_fen} />）
      </p>
      <MemberHistory member={member} />
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
        message={`${showMerchant ? `在 ${member.merchant_name} ` : ''}向 ${member.nickname || `会员 ${member.id}`} 赠送 ${typeof amount === 'number' ? (amount / 100).toFixed(2) : ''} 元，计入赠送余额。`}
        onConfirm={() => {
          setConfirming(false);
          form.actor.send({ type: 'form.submit' });
        }}
        onCancel={() => setConfirming(false)}
      />
    </div>
  );
}
