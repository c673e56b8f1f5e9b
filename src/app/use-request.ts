import { useActorRef, useSelector } from '@xstate/react';
import { useEffect, useMemo } from 'react';
import { fromPromise } from 'xstate';
import { toOutcome } from '../http/outcome';
import { requestMachine } from '../machines/request.machine';
import { selectCanRetry, selectData, selectFailure, selectIsLoading } from '../machines/request.selectors';

/**
 * Runs one request machine for a screen: loads on mount, exposes loading/data/error and `retry`/`refresh`.
 * `fetcher` is read once (the machine's `fetchData` actor); pass changing inputs as `params`.
 */
export function useRequest<T, P = undefined>(fetcher: (params: P) => Promise<T>, params?: P) {
  const logic = useMemo(
    () =>
      requestMachine.provide({
        actors: { fetchData: fromPromise(({ input }) => toOutcome(() => fetcher(input.params as P))) },
      }),
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the machine is built once per mount on purpose
    [],
  );
  const actor = useActorRef(logic, { input: { params } });
  const key = JSON.stringify(params ?? null);
  useEffect(() => {
    actor.send({ type: 'request.fetch', params });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- refetch only when the params' value changes
  }, [actor, key]);
  const loading = useSelector(actor, selectIsLoading);
  const error = useSelector(actor, selectFailure);
  const canRetry = useSelector(actor, selectCanRetry);
  const data = useSelector(actor, (s) => selectData<T>(s));
  return {
    loading,
    data,
    error,
    canRetry,
    retry: () => actor.send({ type: 'request.retry' }),
    refresh: () => actor.send({ type: 'request.fetch' }),
    actor,
  };
}
