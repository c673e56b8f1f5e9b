/**
 * The request machine, model-based: every edge reachable with the fixtures' answers is walked on a live actor
 * whose `fetchData` is a deferred promise settled with the model's outcome. A coverage assertion fails on any edge
 * left unwalked.
 */
import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { getAdjacencyMap } from 'xstate/graph';
import { requestMachine, type RequestSnapshot } from '../../src/machines/request.machine';
import { selectCanRetry, selectFailure, selectIsLoading } from '../../src/machines/request.selectors';
import type { FetchResult } from '../../src/machines/request.types';
import { edgePaths, uncoveredEdges, walkedEdge } from './coverage';
import { deferredActor, playStep } from './model-helpers';
import { requestEventsFor, serializeRequest, type RequestModelEvent } from './request.fixtures';

const ser = (s: RequestSnapshot) => serializeRequest(s);
const adj = getAdjacencyMap(requestMachine, {
  input: {},
  events: requestEventsFor as never,
  serializeState: (s) => ser(s as RequestSnapshot),
});
const start = Object.values(adj)[0]!.state as RequestSnapshot;

describe('request machine (model-based)', () => {
  it('reaches idle, loading, success, failure and unauthorized', () => {
    const values = new Set(Object.values(adj).map((n) => (n.state as RequestSnapshot).value as string));
    expect([...values].sort()).toEqual(['failure', 'idle', 'loading', 'success', 'unauthorized']);
  });

  it('walks every edge on a live actor and covers them all', async () => {
    const walked = new Set<string>();
    for (const path of edgePaths(adj, start, ser)) {
      if (path.edge && walked.has(path.edge)) continue;
      const fetchData = deferredActor<FetchResult>();
      const actor = createActor(requestMachine.provide({ actors: { fetchData: fetchData.logic as never } }), {
        input: {},
      });
      actor.start();
      for (const step of path.steps) {
        const before = actor.getSnapshot();
        await playStep(actor, step.event as RequestModelEvent, fetchData as never);
        const after = actor.getSnapshot();
        expect(ser(after), `${path.edge}`).toBe(ser(step.state as RequestSnapshot));
        walked.add(walkedEdge(before, step.event, after, ser));
      }
      actor.stop();
    }
    expect(uncoveredEdges(adj, walked, ser)).toEqual([]);
  });

  it('a staff 401 is unauthorized (no retry offered); an end-user 401 is a failure with its code', () => {
    for (const node of Object.values(adj)) {
      const s = node.state as RequestSnapshot;
      if (s.matches('unauthorized')) {
        expect(s.context.error?.status).toBe(401);
        expect(s.context.error?.code).not.toBe('WECHAT_AUTH_REQUIRED');
        expect(selectCanRetry(s)).toBe(false);
      }
      if (s.matches('failure')) expect(selectCanRetry(s)).toBe(true);
      expect(selectIsLoading(s)).toBe(s.matches('loading') || s.matches('idle'));
      if (s.matches('success')) expect(selectFailure(s)).toBeNull();
    }
  });
});
