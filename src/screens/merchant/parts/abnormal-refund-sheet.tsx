import { useState } from 'react';
import { schemaErrors, useForm } from '../../../app/use-form';
import { formatFen } from '../../../domain/money';
import {
  ABNORMAL_REFUND_BANKS,
  abnormalRefundSchema,
  type AbnormalRefundInput,
} from '../../../domain/abnormal-refund.schema';
import type { WechatRefundView } from '../../../domain/refunds.schema';
import { membersApi } from '../../../http/people-api';
import { Sheet } from '../../../ui/sheet';
import { type Form, SelectField, StaffForm, TextField } from '../../shared/form-parts';

type To = AbnormalRefundInput['type'];

/** What the staff member confirms, in words. */
function summary(values: Record<string, unknown>, fen: number): string {
  if (values.type === 'MERCHANT_BANK_CARD')
    return `微信将把 ${formatFen(fen)} 退到商户结算银行账户，本系统同时把 ${formatFen(fen)} 转入会员在本商户的余额。`;
  const bank = ABNORMAL_REFUND_BANKS[values.bank_type as keyof typeof ABNORMAL_REFUND_BANKS] ?? '';
  const last4 = String(values.bank_account ?? '')
    .replace(/\s+/g, '')
    .slice(-4);
  return `微信将把 ${formatFen(fen)} 退到 ${String(values.real_name ?? '').trim()} 的${bank}借记卡（尾号 ${last4}）。`;
}

/** Where the money goes instead: the member's debit card or the merchant's bank account (field `type`). */
function Destination({ form }: { form: Form }) {
  const to = form.view.values.type as To;
  const options = [
    ['USER_BANK_CARD', '退到会员银行卡'],
    ['MERCHANT_BANK_CARD', '退回商户账户'],
  ] as const;
  return (
    <div role="radiogroup" aria-label="退款去向" className="join w-full">
      {options.map(([v, label]) => (
        <button
          key={v}
          type="button"
          role="radio"
          aria-checked={to === v}
          className={`btn join-item btn-sm flex-1 ${to === v ? 'btn-primary' : ''}`}
          onClick={() => form.change('type', v)}
        >
          {label}
        </button>
      ))}
    </div>
  );
}

/** The member's debit card: bank, number and holder, bound to the form machine. */
function CardFields({ form }: { form: Form }) {
  return (
    <>
      <SelectField
        form={form}
        name="bank_type"
        label="开户银行（借记卡）"
        options={{ '': '请选择', ...ABNORMAL_REFUND_BANKS }}
      />
      <TextField
        form={form}
        name="bank_account"
        label="银行卡号"
        hint="加密后交给微信支付，本系统不保存明文"
        inputMode="numeric"
        maxLength={40}
      />
      <TextField form={form} name="real_name" label="收款人姓名" maxLength={50} />
    </>
  );
}

/** The confirmation in words before anything is sent. */
function ConfirmStep(props: { text: string; onBack: () => void; onConfirm: () => void }) {
  return (
    <div className="space-y-3">
      <p className="rounded-box bg-base-200 p-3 text-sm" data-testid="abnormal-summary">
        {props.text}
      </p>
      <div className="flex gap-2">
        <button type="button" className="btn flex-1" onClick={props.onBack}>
          返回修改
        </button>
        <button type="button" className="btn btn-primary flex-1" onClick={props.onConfirm}>
          确认提交
        </button>
      </div>
    </div>
  );
}

interface SheetProps {
  refund: WechatRefundView | null;
  orderNo: string;
  onClose: () => void;
  onDone: (message: string, ok: boolean) => void;
}

/**
 * The redirection form of one refund on the shared form machine: the shared schema checks it before the
 * confirmation in words, the machine sends it once confirmed and puts the server's field errors back on the fields;
 * closing with something typed asks first.
 */
function AbnormalRefundForm(props: SheetProps & { refund: WechatRefundView }) {
  const { refund } = props;
  const [confirming, setConfirming] = useState(false);
  const form = useForm({
    schema: abnormalRefundSchema,
    values: { type: 'USER_BANK_CARD', bank_type: '', bank_account: '', real_name: '' },
    submit: (v) => membersApi.redirectRefund(refund.id, abnormalRefundSchema.parse(v)),
  });
  const { actor, view } = form;
  const next = () => {
    // Invalid: the machine shows the schema's messages and sends nothing; valid: confirm in words first.
    if (Object.keys(schemaErrors(abnormalRefundSchema, view.values)).length)
      actor.send({ type: 'form.submit' });
    else setConfirming(true);
  };
  const done = (saved: boolean) => {
    if (saved) props.onDone('已提交异常退款，微信处理后更新状态', true);
    props.onClose();
  };
  return (
    <Sheet open title="处理异常退款" onClose={() => actor.send({ type: 'form.leave' })}>
      <p className="mb-3 text-sm text-base-content/70">
        订单 {props.orderNo} 的 {formatFen(refund.amount_fen)} 原路退回失败（会员的银行卡已注销或冻结等）。
      </p>
      {confirming ? (
        <ConfirmStep
          text={`${summary(view.values, refund.amount_fen)}提交后不能撤回。`}
          onBack={() => setConfirming(false)}
          onConfirm={() => {
            setConfirming(false);
            actor.send({ type: 'form.submit' });
          }}
        />
      ) : (
        <StaffForm form={form} onDone={done} submitLabel="下一步" onSubmit={next}>
          <Destination form={form} />
          {view.values.type === 'USER_BANK_CARD' ? (
            <CardFields form={form} />
          ) : (
            <p className="text-sm">微信把退款退到商户的结算银行账户，会员在本商户的余额同时增加同样金额。</p>
          )}
        </StaffForm>
      )}
    </Sheet>
  );
}

/**
 * A refund WeChat could not pay out (退款异常: the member's card cancelled or frozen): staff send it to the member's
 * debit card, or back to the merchant's bank account (the member gets it on the wallet here). A fresh form each
 * time the sheet opens for a refund.
 */
export function AbnormalRefundSheet(props: SheetProps) {
  if (!props.refund) return null;
  return <AbnormalRefundForm key={props.refund.id} {...props} refund={props.refund} />;
}
