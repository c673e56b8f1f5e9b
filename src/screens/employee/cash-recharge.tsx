import { shallowEqual, useActorRef, useSelector } from '@xstate/react';
import { useEffect, useMemo } from 'react';
import { fromPromise } from 'xstate';
import type { ScreenProps } from '../../app/screen-registry';
import { useRequest } from '../../app/use-request';
import { formatFen } from '../../domain/money';
import { employeeApi } from '../../http/employee-api';
import { toOutcome } from '../../http/outcome';
import { selectCashSteps } from '../../machines/cash-recharge.selectors';
import { cashRechargeMachine, creditOf, type CashRechargeBody } from '../../machines/cash-recharge.machine';
import { ConfirmDialog, Loading, Money } from '../../ui';
import { FormField } from '../../ui/form-field';
import { StaffPage } from '../shared/staff-page';
import { MemberCard, PackagePicker, TodaysCash } from './parts/cash-recharge-parts';
import { CodeScanner, canScanCodes } from './parts/code-scanner';

const newKey = () =>
  typeof crypto.randomUUID === 'function'
    ? crypto.randomUUID()
    : `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;

/** `/employee/cash-recharge`: find a member by code, take cash for a package or an amount, credit their wallet. */
export default function CashRechargeScreen({ route }: ScreenProps) {
  const packages = useRequest(employeeApi.packages);
  const today = useRequest(employeeApi.todaysCashRecharges);
  const machine = useMemo(
    () =>
      cashRechargeMachine.provide({
        actors: {
          lookup: fromPromise(({ input }: { input: { code: string } }) =>
            toOutcome(() => employeeApi.member(input.code)),
          ),
          submit: fromPromise(({ input }: { input: { body: CashRechargeBody; key: string } }) =>
            toOutcome(() => employeeApi.cashRecharge(input.body, input.key)),
          ),
        },
      }),
    [],
  );
  const actor = useActorRef(machine, { input: { canScan: canScanCodes(), newKey } });
  const s = useSelector(actor, (x) => x);
  const c = s.context;
  const send = actor.send;
  const is = useSelector(actor, selectCashSteps, shallowEqual);
  const done = is.done;
  useEffect(() => {
    if (done) today.refresh();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- refresh once per finished recharge
  }, [done]);
  const pkgs = packages.data?.items ?? [];
  const credit = creditOf(c, pkgs);

  let top;
  if (is.entering)
    top = (
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
  else if (is.scanning)
    top = (
      <CodeScanner
        onDetected={(value) => send({ type: 'scan.detected', value })}
        onFailed={(message) => send({ type: 'scan.failed', message })}
        onCancel={() => send({ type: 'scan.cancel' })}
      />
    );
  else if (is.lookingUp) top = <Loading label="正在查询会员…" />;
  else if (done && c.result)
    top = (
      <div className="space-y-3 rounded-box bg-base-100 p-4 text-center" data-testid="cash-result">
        <p className="text-lg font-semibold text-success">充值成功</p>
        <p className="text-sm">
          {c.result.member.nickname} 收现金 <Money fen={c.result.order.amount_fen} />
          {c.result.order.bonus_fen > 0 && (
            <>
              ，赠送 <Money fen={c.result.order.bonus_fen} />
            </>
          )}
        </p>
        <p>
          本店余额 <Money fen={c.result.member.balance_fen} className="text-2xl font-semibold" />
        </p>
        <button type="button" className="btn btn-primary btn-block" onClick={() => send({ type: 'next' })}>
          继续充值
        </button>
      </div>
    );
  else if (c.member)
    top = (
      <div className="space-y-3">
        <MemberCard member={c.member} onClear={() => send({ type: 'member.clear' })} />
        <div className="space-y-3 rounded-box bg-base-100 p-4">
          <PackagePicker
            packages={pkgs}
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
          {is.failed ? (
            <div className="flex gap-2">
              <button type="button" className="btn flex-1" onClick={() => send({ type: 'cancel' })}>
                返回修改
              </button>
              <button
                type="button"
                className="btn btn-primary flex-1"
                onClick={() => send({ type: 'retry' })}
              >
                重试
              </button>
            </div>
          ) : (
            <button
              type="button"
              className="btn btn-primary btn-block"
              disabled={is.submitting}
              onClick={() => send({ type: 'recharge.submit' })}
            >
              {is.submitting ? '正在充值…' : '确认充值'}
            </button>
          )}
        </div>
      </div>
    );

  return (
    <StaffPage route={route} description="为到店会员收取现金并充入其钱包，计入现金报表。">
      <div className="space-y-4 p-4">
        {top}
        <TodaysCash list={today.data} />
      </div>
      <ConfirmDialog
        open={is.confirming || is.submitting}
        busy={is.submitting}
        title="确认现金充值"
        message={`会员：${c.member?.nickname ?? ''}（${c.member?.code ?? ''}）\n收取现金 ${formatFen(credit.pay_fen)}${credit.bonus_fen > 0 ? `，赠送 ${formatFen(credit.bonus_fen)}` : ''}，到账 ${formatFen(credit.pay_fen + credit.bonus_fen)}`}
        confirmLabel="已收现金，确认充值"
        onConfirm={() => send({ type: 'confirm' })}
        onCancel={() => send({ type: 'cancel' })}
      />
    </StaffPage>
  );
}
