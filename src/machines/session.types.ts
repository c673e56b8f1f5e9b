/** Types of the session machine (kept apart so selectors and the edge import them without the machine). */

/** The stored staff user as the client reads it (docs/decisions.md D1: id, name, role, level, merchant_id). */
export interface SessionUser {
  id?: number | undefined;
  name?: string | undefined;
  role?: string | undefined;
  level?: number | undefined;
  merchant_id?: number | null | undefined;
}

export interface SessionContext {
  user: SessionUser | null;
  token: string | null;
}

/** What the edge's `restoreSession` actor reads from storage at start-up. */
export interface RestoredSession {
  token: string | null;
  user: SessionUser | null;
}

export type SessionEvent =
  | { type: 'session.login'; token: string; user: SessionUser }
  | { type: 'session.logout' }
  | { type: 'http.unauthorized' };
