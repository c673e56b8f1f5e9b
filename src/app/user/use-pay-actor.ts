/**
 * The pay machine wired to the browser (the edge of `pay.machine.ts`): HTTP through `user-api`, the WeChat Pay
 * prompt, the attempt kept in sessionStorage, and navigation. Built once per mount of `/user/pay`.
 */
import { useActorRef } from '@xstate/react';
import { useEffect, useMemo } from 'react';
import { fromPromise } from 'xstate';
import { wechatLoginPath } from '../../http/client';
import { loadPayPage, toOutcome, userApi } from '../../http/user-api';
import { payMachine } from '../../machines/pay.machine';
import { clearAttempt, loadAttempt, saveAttempt } from './pay-attempt.store';
import { cashierReturn, promptWechatPay, withoutCashierReturn } from './wechat-pay';

export function payPagePath(deviceId: number, venueId: number): string {
  return `/user/pay?device_id=${deviceId}&venue_id=${venueId}`;
}

export function usePayActor(search: string, navigate: (to: string, opts?: { replace?: boolean }) => void) {
  const init = useMemo(() => {
    const q = new URLSearchParams(search);
    const device_id = Number(q.get('device_id'));
    const venue_id = Number(q.get('venue_id'));
    const returned = cashierReturn(search);
    return { device_id, venue_id, returned, attempt: loadAttempt(device_id) };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- one journey per mount
  }, []);
  const here = payPagePath(init.device_id, init.venue_id);
  // The cashier's additions are read once; drop them after mounting so a reload does not replay them (changing
  // the URL during the first render would make React render again without them).
  useEffect(() => {
    if (init.returned) navigate(`/user/pay${withoutCashierReturn(search)}`, { replace: true });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once per mount
  }, []);

  const logic = useMemo(
    () =>
      payMachine.provide({
        actors: {
          loadPage: fromPromise(({ input }) => loadPayPage(input.device_id, input.venue_id)),
          pay: fromPromise(({ input }) =>
            toOutcome(() => userApi.pay({ ...input.request, return_path: here }, input.key)),
          ),
          promptPayment: fromPromise(({ input }) => promptWechatPay(input.jsapi)),
          queryOrder: fromPromise(({ input }) =>
            toOutcome(() => userApi.query(input.order_no)).then((o) =>
              o.ok ? { ok: true as const, value: { status: o.value.status } } : o,
            ),
          ),
        },
        actions: {
          saveAttempt: (_, { attempt }) => saveAttempt(attempt),
          clearAttempt: (_, { device_id }) => clearAttempt(device_id),
          goToSignIn: () => navigate(wechatLoginPath(here)),
          goToRecharge: (_, { merchant_id }) =>
            navigate(
              `/user/profile?${new URLSearchParams({
                ...(merchant_id ? { recharge: String(merchant_id) } : {}),
                back: here,
              }).toString()}`,
            ),
          goToFeedback: (_, { device_id }) => navigate(`/user/feedback?device_id=${device_id}`),
          goToUsing: (_, { order_no }) => navigate(`/user/using${order_no ? `?order_no=${order_no}` : ''}`),
        },
      }),
    // eslint-disable-next-line react-hooks/exhaustive-deps -- built once per mount
    [],
  );
  return useActorRef(logic, {
    input: {
      device_id: init.device_id,
      venue_id: init.venue_id,
      attempt: init.attempt,
      returned: init.returned,
    },
  });
}
