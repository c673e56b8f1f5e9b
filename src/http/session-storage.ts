/**
 * Where the staff session lives in the browser (docs/decisions.md D1): the keys `token` and `user`, in local
 * storage first and session storage second. The Storage objects are handed in by the edge (the browser's, or
 * happy-dom's in tests), so nothing here reaches for `window`.
 */
import type { StaffUser } from '../domain/api';

export const TOKEN_KEY = 'token';
export const USER_KEY = 'user';
export const PARSE_ERROR_MESSAGE = 'Failed to parse user data';

/** The two browser storages, local (persistent) first. */
export interface SessionStores {
  local: Storage | null;
  session: Storage | null;
}

/** The fields of the stored user the client reads (docs/decisions.md D1); the full shape is the server's. */
export type StoredUser = Partial<StaffUser> & Record<string, unknown>;

/** Result of reading the stored user: `unreadable` is true when a copy existed but was not valid JSON. */
export interface StoredUserRead {
  user: StoredUser | null;
  unreadable: boolean;
}

function get(store: Storage | null, key: string): string | null {
  try {
    return store?.getItem(key) ?? null;
  } catch {
    // A storage that throws on read (blocked cookies) counts as empty.
    return null;
  }
}

/** The token from local storage, else session storage, else null. */
export function readToken(stores: SessionStores): string | null {
  return get(stores.local, TOKEN_KEY) || get(stores.session, TOKEN_KEY) || null;
}

/**
 * The stored user from local storage, else session storage. An unreadable copy is logged with the exact
 * text and treated as no user; nothing is shown to the person using the app.
 */
export function readUser(
  stores: SessionStores,
  log: (msg: string, err?: unknown) => void = console.error,
): StoredUserRead {
  const raw = get(stores.local, USER_KEY) ?? get(stores.session, USER_KEY);
  if (raw === null) return { user: null, unreadable: false };
  try {
    const parsed: unknown = JSON.parse(raw);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new TypeError('user is not an object');
    }
    return { user: parsed as StoredUser, unreadable: false };
  } catch (err) {
    log(PARSE_ERROR_MESSAGE, err);
    return { user: null, unreadable: true };
  }
}

/**
 * Saves a fresh sign-in: local storage first; where that throws (private mode, quota) session storage instead.
 * Returns which storage took it.
 */
export function writeSession(stores: SessionStores, token: string, user: StoredUser): 'local' | 'session' {
  const userJson = JSON.stringify(user);
  try {
    if (!stores.local) throw new Error('no local storage');
    stores.local.setItem(TOKEN_KEY, token);
    stores.local.setItem(USER_KEY, userJson);
    return 'local';
  } catch {
    try {
      stores.local?.removeItem(TOKEN_KEY);
    } catch {
      // ignore: the point is only not to leave half a session behind
    }
    stores.session?.setItem(TOKEN_KEY, token);
    stores.session?.setItem(USER_KEY, userJson);
    return 'session';
  }
}

/** Removes token and user from both storages (logout, 401). */
export function clearSession(stores: SessionStores): void {
  for (const store of [stores.local, stores.session]) {
    try {
      store?.removeItem(TOKEN_KEY);
      store?.removeItem(USER_KEY);
    } catch {
      // a storage that cannot be written holds nothing we wrote
    }
  }
}

/** The browser's storages, or null where they are missing or blocked. Used only at the edge. */
export function browserStores(): SessionStores {
  const pick = (name: 'localStorage' | 'sessionStorage'): Storage | null => {
    try {
      return (globalThis as unknown as Record<string, Storage | undefined>)[name] ?? null;
    } catch {
      return null;
    }
  };
  return { local: pick('localStorage'), session: pick('sessionStorage') };
}
