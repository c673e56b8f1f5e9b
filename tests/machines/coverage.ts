/**
 * Transition coverage for model-based tests (after Expensify/App's `transitionCoverage.ts`): the adjacency map of
 * a machine lists every (state, event) -> next-state edge the model can take; `edgePaths` builds one path per edge
 * (the shortest path to its source, then the edge), and `uncoveredEdges` names the edges a test run did not walk.
 */
import type { AnyEventObject, Snapshot } from 'xstate';
import type { AdjacencyMap, AdjacencyValue } from 'xstate/graph';

export interface Edge<S, E> {
  id: string;
  from: S;
  event: E;
  to: S;
}

export interface ModelPath<S, E> {
  /** The edge this path ends with (absent for the empty path to the initial state). */
  edge: string | null;
  steps: { event: E; state: S }[];
  start: S;
}

const edgeId = (from: string, event: string, to: string) => `${from} --${event}--> ${to}`;

/** Every edge of the adjacency map, with a stable id. */
export function edgesOf<S extends Snapshot<unknown>, E extends AnyEventObject>(
  adj: AdjacencyMap<S, E>,
  serialize: (s: S) => string,
  serializeEvent: (e: E) => string = (e) => JSON.stringify(e),
): Edge<S, E>[] {
  return (Object.values(adj) as AdjacencyValue<S, E>[]).flatMap(({ state, transitions }) =>
    Object.values(transitions).map(({ event, state: to }) => ({
      id: edgeId(serialize(state), serializeEvent(event), serialize(to)),
      from: state,
      event,
      to,
    })),
  );
}

/** One path per edge: breadth-first shortest path to the edge's source, then the edge itself. */
export function edgePaths<S extends Snapshot<unknown>, E extends AnyEventObject>(
  adj: AdjacencyMap<S, E>,
  start: S,
  serialize: (s: S) => string,
): ModelPath<S, E>[] {
  const edges = edgesOf(adj, serialize);
  const startKey = serialize(start);
  const prev = new Map<string, { from: string; event: E; state: S } | null>([[startKey, null]]);
  const queue = [startKey];
  while (queue.length) {
    const key = queue.shift()!;
    const node = adj[key as keyof typeof adj] as AdjacencyValue<S, E> | undefined;
    if (!node) continue;
    for (const { event, state } of Object.values(node.transitions)) {
      const k = serialize(state);
      if (prev.has(k)) continue;
      prev.set(k, { from: key, event, state });
      queue.push(k);
    }
  }
  const stepsTo = (key: string): { event: E; state: S }[] => {
    const steps: { event: E; state: S }[] = [];
    for (let p = prev.get(key); p; p = prev.get(p.from)) steps.unshift({ event: p.event, state: p.state });
    return steps;
  };
  return edges.map((e) => ({
    edge: e.id,
    start,
    steps: [...stepsTo(serialize(e.from)), { event: e.event, state: e.to }],
  }));
}

/** The edges of `adj` that no walked step took; a test asserts this is empty. */
export function uncoveredEdges<S extends Snapshot<unknown>, E extends AnyEventObject>(
  adj: AdjacencyMap<S, E>,
  walked: ReadonlySet<string>,
  serialize: (s: S) => string,
): string[] {
  return edgesOf(adj, serialize)
    .map((e) => e.id)
    .filter((id) => !walked.has(id));
}

/** Records a walked step under the same id `edgesOf` gives it. */
export function walkedEdge<S, E>(from: S, event: E, to: S, serialize: (s: S) => string): string {
  return edgeId(serialize(from), JSON.stringify(event), serialize(to));
}
