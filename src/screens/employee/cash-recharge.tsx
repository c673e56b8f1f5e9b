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
import { ConfirmDialog, Loading } from '../../ui';
import { StaffPage } from '../shared/staff-page';
import { MemberCard, TodaysCash } from './parts/cash-recharge-parts';
import { CashResult, CodeEntry, CreditForm } from './parts/cash-desk-steps';
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
  if (is.entering) top = <CodeEntry c={c} send={send} />;
  else if (is.scanning)
    top = (
      <CodeScanner
        onDetected={(value) => send({ type: 'scan.detected', value })}
        onFailed={(message) => send({ type: 'scan.failed', message })}
        onCancel={() => send({ type: 'scan.cancel' })}
      />
    );
  else if (is.lookingUp) top = <Loading label="正在查询会员…" />;
  else if (done && c.result) top = <CashResult result={c.result} send={send} />;
  else if (c.member)
    top = (
      <div className="space-y-3">
        <MemberCard member={c.member} onClear={() => send({ type: 'member.clear' })} />
        <CreditForm c={c} send={send} packages={pkgs} failed={is.failed} submitting={is.submitting} />
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
