/** node-postgres's value serializer (how it turns a parameter into the text PostgreSQL receives); untyped upstream. */
declare module 'pg/lib/utils.js' {
  const utils: { prepareValue(value: unknown): string | Buffer | null };
  export default utils;
}
