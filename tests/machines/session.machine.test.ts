/**
 * The session machine, model-based: `xstate/graph` explores every state reachable with the fixtures (start-up
 * outcomes, login, logout, 401); one path per edge is played on a live actor whose edge effects are the real
 * ones over happy-dom's storages, and each step must land where the model says, with the storage and navigation
 * effects the spec asks for. A coverage assertion fails on any edge left unwalked.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { getAdjacencyMap, getShortestPaths } from 'xstate/graph';
import {
  clearSession,
  readToken,
  readUser,
  writeSession,
  type SessionStores,
} from '../../src/http/session-storage';
import { sessionMachine, type SessionSnapshot } from '../../src/machines/session.machine';
import {
  selectAuthenticated,
  selectLevel,
  selectName,
  selectRole,
  selectUserId,
} from '../../src/machines/session.selectors';
import type { RestoredSession } from '../../src/machines/session.types';
import { edgePaths, uncoveredEdges, walkedEdge } from './coverage';
import { deferredActor, playStep } from './model-helpers';
import { sessionEventsFor, serializeSession, type ModelEvent } from './session.fixtures';

const stores: SessionStores = { local: localStorage, session: sessionStorage };

function startSession() {
  const restore = deferredActor<RestoredSession>();
  const redirects: string[] = [];
  const actor = createActor(
    sessionMachine.provide({
      actors: { restoreSession: restore.logic },
      actions: {
        persistSession: (_, p) => void writeSession(stores, p.token, p.user as Record<string, unknown>),
        clearStoredSession: () => clearSession(stores),
        redirectToLogin: () => redirects.push('/admin-login'),
      },
    }),
  );
  actor.start();
  return { actor, restore, redirects };
}

const adj = getAdjacencyMap(sessionMachine, {
  events: sessionEventsFor as never,
  serializeState: (s) => serializeSession(s as SessionSnapshot),
});
const start = Object.values(adj)[0]!.state as SessionSnapshot;
const ser = (s: SessionSnapshot) => serializeSession(s);

beforeEach(() => {
  localStorage.clear();
  sessionStorage.clear();
});

describe('session machine (model-based)', () => {
  it('reaches the four states of docs/decisions.md D2', () => {
    const values = new Set(Object.values(adj).map((n) => JSON.stringify((n.state as SessionSnapshot).value)));
    expect([...values].sort()).toEqual(['"anonymous"', '"authenticated"', '"loggedOut"', '"restoring"']);
  });

  it('walks every edge on a live actor with the real storage effects, and covers them all', async () => {
    const walked = new Set<string>();
    for (const path of edgePaths(adj, start, ser)) {
      if (path.edge && walked.has(path.edge)) continue;
      localStorage.clear();
      sessionStorage.clear();
      const live = startSession();
      for (const step of path.steps) {
        const event = step.event as ModelEvent;
        const before = live.actor.getSnapshot();
        const redirectsBefore = live.redirects.length;
        await playStep(live.actor, event, live.restore as never);
        const after = live.actor.getSnapshot();
        expect(ser(after), `${path.edge}: ${event.type}`).toBe(ser(step.state as SessionSnapshot));
        // The effects that go with the edge.
        if (event.type === 'session.login' && !before.matches('restoring')) {
          expect(readToken(stores)).toBe(event.token);
          expect(readUser(stores).user).toMatchObject({ name: event.user.name });
        }
        if (
          event.type === 'http.unauthorized' ||
          (event.type === 'session.logout' && before.matches('authenticated'))
        ) {
          expect(after.matches('loggedOut')).toBe(true);
          expect(readToken(stores)).toBeNull();
          expect(live.redirects.length).toBe(redirectsBefore + 1);
        }
        walked.add(walkedEdge(before, event, after, ser));
      }
      live.actor.stop();
    }
    expect(uncoveredEdges(adj, walked, ser)).toEqual([]);
  });

  it('derives authenticated, role or none, name or empty, id or none in every reachable state', () => {
    for (const p of getShortestPaths(sessionMachine, {
      events: sessionEventsFor as never,
      serializeState: (s) => serializeSession(s as SessionSnapshot),
    })) {
      const s = p.state as SessionSnapshot;
      const user = s.context.user;
      expect(selectAuthenticated(s)).toBe(user !== null);
      expect(selectRole(s)).toBe(user?.role ?? null);
      expect(selectName(s)).toBe(user?.name ?? '');
      expect(selectUserId(s)).toBe(user?.id ?? null);
      expect(selectLevel(s)).toBe(user?.level ?? 1);
    }
  });

  it('login falls back to session storage when local storage throws', async () => {
    // A browser storage in private mode: reads work, writes throw.
    const full: Storage = {
      length: 0,
      clear: () => {},
      key: () => null,
      getItem: () => null,
      removeItem: () => {},
      setItem: () => {
        throw new DOMException('quota', 'QuotaExceededError');
      },
    };
    const stored = writeSession({ local: full, session: sessionStorage }, 'tok', { name: 'x' });
    expect(stored).toBe('session');
    expect(sessionStorage.getItem('token')).toBe('tok');
  });
});
