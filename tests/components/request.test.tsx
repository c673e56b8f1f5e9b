/**
 * The request machine's generated paths drive the real `useRequest` hook and the shared state components
 * (Loading, ErrorState with retry, the data) as a screen uses them: after every step the rendered UI must show
 * what the machine's state says. The fetcher is the edge: a deferred promise the test settles with the model's
 * outcome.
 */
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { getShortestPaths } from 'xstate/graph';
import { useRequest } from '../../src/app/use-request';
import { ThrownRequestError } from '../../src/domain/outcome';
import { requestMachine, type RequestSnapshot } from '../../src/machines/request.machine';
import type { FetchResult } from '../../src/machines/request.types';
import { ErrorState, Loading } from '../../src/ui';
import { requestEventsFor, serializeRequest, type RequestModelEvent } from '../machines/request.fixtures';

afterEach(cleanup);

function harness() {
  const waiting: { resolve: (v: unknown) => void; reject: (e: unknown) => void }[] = [];
  let actorRef: ReturnType<typeof useRequest>['actor'] | undefined;
  const fetcher = () => new Promise<unknown>((resolve, reject) => waiting.push({ resolve, reject }));
  function Probe() {
    const r = useRequest(fetcher);
    actorRef = r.actor;
    if (r.loading) return <Loading />;
    if (r.error) return <ErrorState message={r.error.message} onRetry={r.canRetry ? r.retry : undefined} />;
    return <pre data-testid="data">{JSON.stringify(r.data)}</pre>;
  }
  return { Probe, waiting, actor: () => actorRef! };
}

/** Settles the running call the way the HTTP client would: a value, an ThrownRequestError, or a bug. */
function settle(h: ReturnType<typeof harness>, event: RequestModelEvent) {
  const call = h.waiting.shift();
  if (!call) throw new Error('no call in flight');
  if (event.type === 'xstate.error.actor.fetchData') return call.reject(new TypeError('bug'));
  if (event.type !== 'xstate.done.actor.fetchData') throw new Error(event.type);
  const out: FetchResult = event.output;
  if (out.ok) call.resolve(out.value);
  else call.reject(new ThrownRequestError({ ...out.error, url: '/x' }));
}

const paths = getShortestPaths(requestMachine, {
  input: {},
  events: requestEventsFor as never,
  serializeState: (s) => serializeRequest(s as RequestSnapshot),
}).map((p) => ({ ...p, steps: p.steps.filter((s) => (s.event.type as string) !== 'xstate.init') }));

/** What the UI must show for the machine's state: the spinner, the data, or the error with or without 重试. */
function expectUi(s: RequestSnapshot, where: string) {
  if (s.matches('loading') || s.matches('idle')) {
    expect(screen.getByRole('status'), where).toBeTruthy();
    expect(screen.queryByRole('alert'), where).toBeNull();
    expect(screen.queryByTestId('data'), where).toBeNull();
  }
  if (s.matches('success')) {
    expect(screen.getByTestId('data').textContent, where).toBe(JSON.stringify(s.context.data));
    expect(screen.queryByRole('status'), where).toBeNull();
    expect(screen.queryByRole('alert'), where).toBeNull();
  }
  if (s.matches('failure')) {
    expect(screen.getByRole('alert').textContent, where).toContain(s.context.error!.message);
    expect(screen.getByRole('button', { name: '重试' }), where).toBeTruthy();
  }
  if (s.matches('unauthorized')) {
    expect(screen.getByRole('alert').textContent, where).toContain(s.context.error!.message);
    expect(screen.queryByRole('button', { name: '重试' }), where).toBeNull();
  }
}

describe('request paths on rendered UI', () => {
  it.each(paths.map((p) => [p.steps.map((s) => s.event.type).join(' > ') || '(start)', p] as const))(
    '%s',
    async (_, path) => {
      const h = harness();
      render(<h.Probe />);
      // The hook loads on mount: the model's first `request.fetch` is that mount.
      const steps = [...path.steps] as { event: RequestModelEvent; state: RequestSnapshot }[];
      if (steps[0]?.event.type === 'request.fetch') steps.shift();
      expectUi(h.actor().getSnapshot(), 'on mount');
      for (const [i, step] of steps.entries()) {
        await act(async () => {
          if (step.event.type.startsWith('xstate.')) settle(h, step.event);
          else if (step.event.type === 'request.retry' && screen.queryByRole('button', { name: '重试' })) {
            fireEvent.click(screen.getByRole('button', { name: '重试' }));
          } else h.actor().send(step.event as never);
          await new Promise((r) => setTimeout(r, 0));
        });
        const s = h.actor().getSnapshot();
        expect(serializeRequest(s)).toBe(serializeRequest(step.state));
        expectUi(s, `after step ${i + 1} (${step.event.type})`);
      }
    },
  );
});
