/**
 * The recharge machine wired to the browser (its edge): packages and recharge through `user-api`, the WeChat Pay
 * prompt, sign-in navigation. `onRecharged` lets the screen reload the wallets.
 */
import { useActorRef } from '@xstate/react';
import { useMemo, useRef } from 'react';
import { fromPromise } from 'xstate';
import { wechatLoginPath } from '../../http/client';
import { toOutcome, userApi } from '../../http/user-api';
import { rechargeMachine } from '../../machines/user-recharge.machine';
import { promptWechatPay } from './wechat-pay';

export function useRechargeActor(opts: {
  returnPath: string;
  returned: { order_no: string } | 'cancel' | null;
  merchantId: number | null;
  navigate: (to: string) => void;
  onRecharged: () => void;
}) {
  const latest = useRef(opts);
  latest.current = opts;
  const logic = useMemo(
    () =>
      rechargeMachine.provide({
        actors: {
          loadPackages: fromPromise(({ input }) =>
            toOutcome(() => userApi.packages(input.merchant_id).then((r) => r.items)),
          ),
          recharge: fromPromise(({ input }) =>
            toOutcome(() =>
              userApi.recharge(
                {
                  merchant_id: input.merchant_id,
                  package_id: input.package_id,
                  return_path: latest.current.returnPath,
                },
                input.key,
              ),
            ),
          ),
          promptPayment: fromPromise(({ input }) => promptWechatPay(input.jsapi)),
          queryOrder: fromPromise(({ input }) =>
            toOutcome(() => userApi.query(input.order_no)).then((o) =>
              o.ok ? { ok: true as const, value: { status: o.value.status } } : o,
            ),
          ),
        },
        actions: {
          goToSignIn: () => latest.current.navigate(wechatLoginPath(latest.current.returnPath)),
          recharged: () => latest.current.onRecharged(),
        },
      }),
    [],
  );
  return useActorRef(logic, { input: { returned: opts.returned, merchant_id: opts.merchantId } });
}
