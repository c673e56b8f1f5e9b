import type { CashRechargeSnapshot } from '../../../machines/cash-recharge.machine';
import type { RechargePackage } from '../../../domain/api';
import { Money } from '../../../ui';
import { FormField } from '../../../ui/form-field';
import { PackagePicker } from './cash-recharge-parts';

type Context = CashRechargeSnapshot['context'];
/** The cash desk machine's `send`. */
export type Send = (event: Parameters<CashRechargeSnapshot['machine']['transition']>[1]) => void;

/** The member code typed (or 扫码 where the camera can read codes), then 查询会员. */
export function CodeEntry({ c, send }: { c: Context; send: Send }) {
  return (
    <form
      className="space-y-2 rounded-box bg-base-100 p-4"
      onSubmit={(e) => {
        e.preventDefault();
        send({ type: 'code.submit' });
      }}
    >
      <FormField label="会员码" error={c.message ?? undefined} hint="请顾客打开「我的」页面出示会员码">
        {(id) => (
          <input
            id={id}
            className="input input-lg w-full font-mono tracking-widest"
            inputMode="numeric"
            autoComplete="off"
            placeholder="8 位数字"
            maxLength={12}
            value={c.code}
            onChange={(e) => send({ type: 'code.change', value: e.target.value })}
          />
        )}
      </FormField>
      <div className="flex gap-2">
        <button type="submit" className="btn btn-primary flex-1">
          查询会员
        </button>
        {c.canScan && (
          <button
            type="button"
            className="btn btn-outline flex-1"
            onClick={() => send({ type: 'scan.start' })}
          >
            扫码
          </button>
        )}
      </div>
    </form>
  );
}

/** 充值成功: the member, the cash taken and the bonus, the new balance at this merchant, and 继续充值. */
export function CashResult({ result, send }: { result: NonNullable<Context['result']>; send: Send }) {
  return (
    <div className="space-y-3 rounded-box bg-base-100 p-4 text-center" data-testid="cash-result">
      <p className="text-lg font-semibold text-success">充值成功</p>
      <p className="text-sm">
        {result.member.nickname} 收现金 <Money fen={result.order.amount_fen} />
        {result.order.bonus_fen > 0 && (
          <>
            ，赠送 <Money fen={result.order.bonus_fen} />
          </>
        )}
      </p>
      <p>
        本店余额 <Money fen={result.member.balance_fen} className="text-2xl font-semibold" />
      </p>
      <button type="button" className="btn btn-primary btn-block" onClick={() => send({ type: 'next' })}>
        继续充值
      </button>
    </div>
  );
}

/** A package or an amount, the note, the error, and 确认充值 (or 返回修改 / 重试 after a failure). */
export function CreditForm(p: {
  c: Context;
  send: Send;
  packages: RechargePackage[];
  failed: boolean;
  submitting: boolean;
}) {
  const { c, send } = p;
  return (
    <div className="space-y-3 rounded-box bg-base-100 p-4">
      <PackagePicker
        packages={p.packages}
        selected={c.packageId}
        onSelect={(id) => send({ type: 'package.select', id })}
      />
      <FormField label="或输入金额（元）" error={c.errors.amount_fen}>
        {(id) => (
          <input
            id={id}
            className="input w-full"
            inputMode="decimal"
            placeholder="例如 50"
            value={c.amountText}
            onChange={(e) => send({ type: 'amount.change', value: e.target.value })}
          />
        )}
      </FormField>
      <FormField label="备注" error={c.errors.note}>
        {(id) => (
          <input
            id={id}
            className="input w-full"
            placeholder="必填，如：前台收现"
            maxLength={200}
            value={c.note}
            onChange={(e) => send({ type: 'note.change', value: e.target.value })}
          />
        )}
      </FormField>
      {c.message && (
        <div role="alert" className="alert alert-error text-sm">
          {c.message}
        </div>
      )}
      {p.failed ? (
        <div className="flex gap-2">
          <button type="button" className="btn flex-1" onClick={() => send({ type: 'cancel' })}>
            返回修改
          </button>
          <button type="button" className="btn btn-primary flex-1" onClick={() => send({ type: 'retry' })}>
            重试
          </button>
        </div>
      ) : (
        <button
          type="button"
          className="btn btn-primary btn-block"
          disabled={p.submitting}
          onClick={() => send({ type: 'recharge.submit' })}
        >
          {p.submitting ? '正在充值…' : '确认充值'}
        </button>
      )}
    </div>
  );
}
