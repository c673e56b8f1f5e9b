/** Search helpers for list endpoints (`?q=`). */

/** `%q%` for ILIKE, with the pattern characters in the user's text taken literally. */
export function likePattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}
