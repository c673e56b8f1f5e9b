/**
 * Property-based bad input on the sign-in endpoint: whatever arrives (wrong types, missing fields, huge strings,
 * malformed JSON, oversized bodies), the answer is a 4xx in our error shape and no row changes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { count } from 'drizzle-orm';
import { accounts, auth_tokens, login_attempts } from '../../../server/db/schema';
import { createTestApp, type TestApp } from '../test-app';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

async function counts() {
  const [a] = await t.deps.db.select({ n: count() }).from(accounts);
  const [tk] = await t.deps.db.select({ n: count() }).from(auth_tokens);
  const [la] = await t.deps.db.select({ n: count() }).from(login_attempts);
  return { accounts: a!.n, tokens: tk!.n, attempts: la!.n };
}

async function expectRejected(body: string | Uint8Array<ArrayBuffer>, contentType = 'application/json') {
  const res = await t.request('/backend/auth/login', {
    method: 'POST',
    headers: { 'content-type': contentType },
    body,
  });
  expect(res.status).toBeGreaterThanOrEqual(400);
  expect(res.status).toBeLessThan(500);
  const json = (await res.json()) as { code: string; message: string };
  expect(json.code).toMatch(/^[A-Z_]+$/);
  expect(json.message).toMatch(/[\u4e00-\u9fff]/);
  return { status: res.status, json };
}

/** Any JSON value that is not a valid {username, password} object. */
const notAString = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
);

describe('sign-in with bad input', () => {
  it('wrong types, missing fields and too long strings: 400 VALIDATION_FAILED, nothing changed', async () => {
    const before = await counts();
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.record({ username: notAString, password: fc.string() }),
          fc.record({ username: fc.string({ minLength: 1, maxLength: 10 }), password: notAString }),
          fc.record({ username: fc.string() }, { requiredKeys: [] }),
          fc.record({ password: fc.string() }, { requiredKeys: [] }),
          fc.record({
            // Too long even after trimming (the schema trims before it measures).
            username: fc.string({ maxLength: 5000 }).map((s) => 'u'.repeat(65) + s),
            password: fc.string({ minLength: 1 }),
          }),
          fc.record({
            username: fc.string({ minLength: 1, maxLength: 10 }).filter((s) => s.trim() !== ''),
            password: fc.string({ minLength: 129, maxLength: 5000 }),
          }),
          fc.record({ username: fc.constantFrom('', '   ', '\t'), password: fc.string() }),
          notAString,
        ),
        async (value) => {
          const { status, json } = await expectRejected(JSON.stringify(value));
          expect(status).toBe(400);
          expect(json.code).toBe('VALIDATION_FAILED');
        },
      ),
      { numRuns: 120 },
    );
    expect(await counts()).toEqual(before);
  });

  it('malformed JSON: 400 BAD_JSON, nothing changed', async () => {
    const before = await counts();
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string().filter((s) => {
            try {
              JSON.parse(s);
              return false;
            } catch {
              return true;
            }
          }),
          fc.constantFrom('{', '{"username":"admin","password":', "{'username':'admin'}", '\u0000', ''),
        ),
        async (text) => {
          const { status, json } = await expectRejected(text);
          expect(status).toBe(400);
          // A NUL character is refused at the edge before the body is parsed.
          expect(json.code).toBe(text.includes(String.fromCharCode(0)) ? 'NUL_CHARACTER' : 'BAD_JSON');
        },
      ),
      { numRuns: 80 },
    );
    expect(await counts()).toEqual(before);
  });

  it('oversized bodies: 413 PAYLOAD_TOO_LARGE (JSON limit and the app-wide limit), nothing changed', async () => {
    const before = await counts();
    const big = JSON.stringify({ username: 'admin', password: 'x'.repeat(70 * 1024) });
    const r1 = await expectRejected(big);
    expect(r1.status).toBe(413);
    expect(r1.json.code).toBe('PAYLOAD_TOO_LARGE');
    const huge = new Uint8Array(new ArrayBuffer(2 * 1024 * 1024)).fill(0x61);
    const r2 = await expectRejected(huge);
    expect(r2.status).toBe(413);
    expect(await counts()).toEqual(before);
  });

  it('a valid shape with random credentials never signs in and answers 401 (or 429 once locked)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc
          .string({ minLength: 1, maxLength: 64 })
          .filter((s) => s.trim() !== '' && !['admin', 'merchant', 'partner', 'employee'].includes(s.trim())),
        fc.string({ minLength: 1, maxLength: 128 }),
        async (username, password) => {
          const { status } = await expectRejected(JSON.stringify({ username, password }));
          expect([401, 429]).toContain(status);
        },
      ),
      { numRuns: 8 },
    );
    const after = await counts();
    const [tk] = await t.deps.db.select({ n: count() }).from(auth_tokens);
    expect(tk!.n).toBe(0);
    expect(after.accounts).toBe(4);
  });
});
