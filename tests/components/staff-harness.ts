/**
 * A staff screen against the real server in process: a fresh test app (real database, demo seed), a signed-in
 * staff account's token in storage, and the one HTTP client pointed at the app. `requests` records every call
 * (method and path) so a test can say what was, or was not, sent.
 */
import { forgetMe } from '../../src/app/staff-features';
import type { LoginResponse } from '../../src/domain/api';
import { configureHttp, resetHttp } from '../../src/http/client';
import { createTestApp, postJson, type TestApp } from '../server/test-app';

export interface StaffHarness {
  t: TestApp;
  requests: string[];
  close(): Promise<void>;
}

export async function startStaffHarness(username: string): Promise<StaffHarness> {
  const t = await createTestApp();
  const { body } = await t.json<LoginResponse>(
    '/backend/auth/login',
    postJson({ username, password: 'demo1234' }),
  );
  localStorage.setItem('token', body.token);
  localStorage.setItem('user', JSON.stringify(body.user));
  const requests: string[] = [];
  configureHttp({
    baseURL: '/backend',
    stores: { local: localStorage, session: sessionStorage },
    navigate: (p) => window.history.pushState(null, '', p),
    currentPath: () => window.location.pathname + window.location.search,
    log: () => {},
    fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
      requests.push(`${init?.method ?? 'GET'} ${String(input)}`);
      return t.app.request(String(input), init);
    }) as typeof fetch,
  });
  return {
    t,
    requests,
    async close() {
      resetHttp();
      forgetMe();
      localStorage.clear();
      await t.close();
    },
  };
}
