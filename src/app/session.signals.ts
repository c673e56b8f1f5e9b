/**
 * The derived session values of docs/decisions.md D1 as signals (docs/decisions.md D11), fed from `actor.select(...)` once
 * per session actor. Components read them after `useSignals()`.
 */
import { signal } from '@preact/signals-react';
import type { ActorRefFrom } from 'xstate';
import type { sessionMachine } from '../machines/session.machine';
import {
  selectAuthenticated,
  selectLevel,
  selectName,
  selectRole,
  selectUserId,
} from '../machines/session.selectors';

export const authenticated = signal(false);
export const role = signal<string | null>(null);
export const userName = signal('');
export const userId = signal<number | null>(null);
export const level = signal(1);

/** Bridges the session actor to the signals; returns the unsubscribe. */
export function bridgeSessionSignals(actor: ActorRefFrom<typeof sessionMachine>): () => void {
  const subs = [
    actor.select(selectAuthenticated).subscribe((v) => (authenticated.value = v)),
    actor.select(selectRole).subscribe((v) => (role.value = v)),
    actor.select(selectName).subscribe((v) => (userName.value = v)),
    actor.select(selectUserId).subscribe((v) => (userId.value = v)),
    actor.select(selectLevel).subscribe((v) => (level.value = v)),
  ];
  const snap = actor.getSnapshot();
  authenticated.value = selectAuthenticated(snap);
  role.value = selectRole(snap);
  userName.value = selectName(snap);
  userId.value = selectUserId(snap);
  level.value = selectLevel(snap);
  return () => subs.forEach((s) => s.unsubscribe());
}
