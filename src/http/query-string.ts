/** `?a=1&b=x` from a list query, leaving out undefined and empty values ('' when nothing is left). */
export function queryString(q: object): string {
  const s = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined && v !== null && v !== '') s.set(k, String(v));
  const text = s.toString();
  return text ? `?${text}` : '';
}
