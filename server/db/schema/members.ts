/** Members (end users, WeChat identities), their cookie sessions and OAuth states. Money is integer fen (docs/decisions.md D5). */
import { sql } from 'drizzle-orm';
import { index, integer, pgTable, text } from 'drizzle-orm/pg-core';
import { createdAt, id, ts } from './columns';

export const members = pgTable('members', {
  id: id(),
  openid: text().notNull().unique(),
  unionid: text(),
  nickname: text().notNull().default(''),
  avatar_url: text().notNull().default(''),
  /**
   * The member code an employee scans or types (docs/decisions.md D12): 8 digits with a Damm check digit, drawn at
   * random by the SQL function `member_code()` (migration 0004) for every new row, whoever inserts it.
   */
  code: text()
    .notNull()
    .unique()
    .default(sql`member_code()`),
  created_at: createdAt(),
});

/** Member sessions behind the HttpOnly cookie: only the hash of the random token is stored. */
export const member_sessions = pgTable(
  'member_sessions',
  {
    id: id(),
    member_id: integer()
      .notNull()
      .references(() => members.id, { onDelete: 'cascade' }),
    token_hash: text().notNull().unique(),
    expires_at: ts().notNull(),
    revoked_at: ts(),
    created_at: createdAt(),
  },
  (t) => [index('member_sessions_member_idx').on(t.member_id)],
);

/** OAuth `state`: single use, short-lived, bound to the return path (and to the member once the callback ran). */
export const oauth_states = pgTable('oauth_states', {
  state: text().primaryKey(),
  return_path: text().notNull(),
  expires_at: ts().notNull(),
  used_at: ts(),
  code: text(),
  /** Set by the first callback; a duplicate callback (phones call twice) opens another session for this member. */
  member_id: integer().references(() => members.id),
  /** SHA-256 of the random value put in the starting browser's `wx_oauth` cookie: the callback must come from it. */
  browser_hash: text(),
  /** The session the first callback opened; a duplicate is honoured only while it is still signed in. */
  session_id: integer(),
  created_at: createdAt(),
});
