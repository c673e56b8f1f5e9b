/** Column helpers shared by every schema file. */
import { integer, timestamp } from 'drizzle-orm/pg-core';

export const id = () => integer().primaryKey().generatedAlwaysAsIdentity();
export const ts = () => timestamp({ withTimezone: true, mode: 'date' });
export const createdAt = () => ts().notNull().defaultNow();
