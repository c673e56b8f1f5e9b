import { useState } from 'react';
import { formatFen } from '../../../domain/money';
import {
  ABNORMAL_REFUND_BANKS,
  abnormalRefundSchema,
  type AbnormalRefundInput,
} from '../../../domain/abnormal-refund.schema';
import type { WechatRefundView } from '../../../domain/refunds.schema';
import { membersApi } from '../../../http/people-api';
import { FormField } from '../../../ui/form-field';
import { Sheet } from '../../../ui/sheet';

type To = AbnormalRefundInput['type'];
interface Card {
  bank_type: string;
  bank_account: string;
  real_name: string;
}

/** What the staff member confirms, in words. */
function summary(to: To, card: Card, fen: number): string {
  if (to === 'MERCHANT_BANK_CARD')
    return `微信将把 ${formatFen(fen)} 退到商户结算银行账户，本系统同时把 ${formatFen(fen)} 转入会员在本商户的余额。`;
  const bank = ABNORMAL_REFUND_BANKS[card.bank_type as keyof typeof ABNORMAL_REFUND_BANKS] ?? '';
  return `微信将把 ${formatFen(fen)} 退到 ${card.real_name} 的${bank}借记卡（尾号 ${card.bank_account.replace(/\s+/g, '').slice(-4)}）。`;
}

/** The member's debit card: bank, number and holder, with the shared schema's messages. */
function CardFields(props: { card: Card; errors: Record<string, string>; onChange: (c: Card) => void }) {
  const { card, errors } = props;
  const field = (k: keyof Card) => ({
    value: card[k],
    onChange: (e: { target: { value: string } }) => props.onChange({ ...card, [k]: e.target.value }),
  });
  return (
    <>
      <FormField label="开户银行（借记卡）" error={errors.bank_type}>
        {(id) => (
          <select id={id} className="select w-full" {...field('bank_type')}>
            <option value="">请选择</option>
            {Object.entries(ABNORMAL_REFUND_BANKS).map(([code, name]) => (
              <option key={code} value={code}>
                {name}
              </option>
            ))}
          </select>
        )}
      </FormField>
      <FormField label="银行卡号" error={errors.bank_account} hint="加密后交给微信支付，本系统不保存明文">
        {(id) => <input id={id} className="input w-full" inputMode="numeric" {...field('bank_account')} />}
      </FormField>
      <FormField label="收款人姓名" error={errors.real_name}>
        {(id) => <input id={id} className="input w-full" {...field('real_name')} />}
      </FormField>
    </>
  );
}

/** Where the money goes instead: the member's debit card or the merchant's bank account. */
function Destination({ to, onChange }: { to: To; onChange: (to: To) => void }) {
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
          onClick={() => onChange(v)}
        >
          {label}
        </button>
      ))}
    </div>
  );
}

/** The confirmation in words before anything is sent. */
function ConfirmStep(props: { text: string; busy: boolean; onBack: () => void; onConfirm: () => void }) {
  return (
    <div className="space-y-3">
      <p className="rounded-box bg-base-200 p-3 text-sm" data-testid="abnormal-summary">
        {props.text}
      </p>
      <div className="flex gap-2">
        <button type="button" className="btn flex-1" disabled={props.busy} onClick={props.onBack}>
          返回修改
        </button>
        <button
          type="button"
          className="btn btn-primary flex-1"
          disabled={props.busy}
          onClick={props.onConfirm}
        >
          {props.busy && <span className="loading loading-spinner loading-xs" aria-hidden="true" />}
          确认提交
        </button>
      </div>
    </div>
  );
}

/**
 * A refund WeChat could not pay out (退款异常: the member's card cancelled or frozen): staff send it to the member's
 * debit card, or back to the merchant's bank account (the member gets it on the wallet here); checked with the
 * shared schema, then confirmed in words before anything is sent.
 */
export function AbnormalRefundSheet(props: {
  refund: WechatRefundView | null;
  orderNo: string;
  onClose: () => void;
  onDone: (message: string, ok: boolean) => void;
}) {
  const [to, setTo] = useState<To>('USER_BANK_CARD');
  const [card, setCard] = useState<Card>({ bank_type: '', bank_account: '', real_name: '' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [step, setStep] = useState<'form' | 'confirm'>('form');
  const [busy, setBusy] = useState(false);
  const refund = props.refund;
  const input = (): unknown => (to === 'MERCHANT_BANK_CARD' ? { type: to } : { type: to, ...card });
  const close = () => {
    setStep('form');
    setErrors({});
    props.onClose();
  };
  const next = () => {
    const r = abnormalRefundSchema.safeParse(input());
    if (r.success) return setStep('confirm');
    setErrors(Object.fromEntries(r.error.issues.map((i) => [String(i.path[0] ?? 'type'), i.message])));
  };
  const submit = async () => {
    if (!refund) return;
    setBusy(true);
    try {
      await membersApi.redirectRefund(refund.id, abnormalRefundSchema.parse(input()));
      props.onDone('已提交异常退款，微信处理后更新状态', true);
      close();
    } catch (e) {
      props.onDone((e as { message?: string }).message ?? '提交失败，请稍后再试', false);
      setStep('form');
    } finally {
      setBusy(false);
    }
  };
  return (
    <Sheet open={refund !== null} title="处理异常退款" onClose={close}>
      <p className="mb-3 text-sm text-base-content/70">
        订单 {props.orderNo} 的 {formatFen(refund?.amount_fen ?? 0)}{' '}
        原路退回失败（会员的银行卡已注销或冻结等）。
      </p>
      {step === 'form' ? (
        <div className="space-y-3">
          <Destination to={to} onChange={setTo} />
          {to === 'USER_BANK_CARD' ? (
            <CardFields card={card} errors={errors} onChange={setCard} />
          ) : (
            <p className="text-sm">微信把退款退到商户的结算银行账户，会员在本商户的余额同时增加同样金额。</p>
          )}
          <button type="button" className="btn btn-primary w-full" onClick={next}>
            下一步
          </button>
        </div>
      ) : (
        <ConfirmStep
          text={`${summary(to, card, refund?.amount_fen ?? 0)}提交后不能撤回。`}
          busy={busy}
          onBack={() => setStep('form')}
          onConfirm={() => void submit()}
        />
      )}
    </Sheet>
  );
}
