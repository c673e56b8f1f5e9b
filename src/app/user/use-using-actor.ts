import { useActorRef } from '@xstate/react';
import { useMemo } from 'react';
import { fromPromise } from 'xstate';
import { wechatLoginPath } from '../../http/client';
import { toOutcome, userApi } from '../../http/user-api';
import { usingMachine } from '../../machines/user-using.machine';

/**
 * The using machine of `/user/using`, wired to the member's API: the sessions (with the clock skew to the server)
 * and the early stop; signing in goes through WeChat and comes back here.
 */
export function useUsingActor(navigate: (to: string) => void) {
  const logic = useMemo(
    () =>
      usingMachine.provide({
        actors: {
          loadUsing: fromPromise(() =>
            toOutcome(() =>
              userApi.using().then((r) => ({
                items: r.items,
                skew_ms: r.server_time ? Date.parse(r.server_time) - Date.now() : 0,
              })),
            ),
          ),
          stopSession: fromPromise(({ input }) => toOutcome(() => userApi.stop(input.order_no))),
        },
        actions: { goToSignIn: () => navigate(wechatLoginPath('/user/using')) },
      }),
    // eslint-disable-next-line react-hooks/exhaustive-deps -- one machine per mount
    [],
  );
  return useActorRef(logic);
}
