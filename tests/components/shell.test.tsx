/**
 * The rendered app (Testing Library, happy-dom) driven by the same generated paths as the machine tests: for each
 * shortest path of the session and tab-bar machines the real <App> is rendered against the real server app
 * (`app.request`, real DB and tokens), each step is played the way a person or the server would cause it (the
 * sign-in form, 退出登录, a real 401, a navigation, a tab tap), and after every step the UI must show what the
 * machine's state says.
 */
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { navigate } from 'wouter/use-browser-location';
import { getShortestPaths } from 'xstate/graph';
import { App } from '../../src/app/app';
import { createRootActors, type RootActors } from '../../src/app/root-actors';
import { forgetMe } from '../../src/app/staff-features';
import type { LoginResponse } from '../../src/domain/api';
import { resetHttp } from '../../src/http/client';
import { PARSE_ERROR_MESSAGE, type SessionStores } from '../../src/http/session-storage';
import { sessionMachine, type SessionSnapshot } from '../../src/machines/session.machine';
import { tabBarMachine, type TabBarSnapshot } from '../../src/machines/tab-bar.machine';
import { selectActiveTab, selectTabs } from '../../src/machines/tab-bar.selectors';
import type { TabBarEvent } from '../../src/machines/tab-bar.types';
import { createTestApp, type TestApp } from '../server/test-app';
import { sessionEventsFor, serializeSession, type ModelEvent } from '../machines/session.fixtures';
import { serializeTabBar, tabEventsFor } from '../machines/tab-bar.fixtures';

let t: TestApp;
let accounts: Record<'merchant' | 'partner', LoginResponse>;
let actors: RootActors | undefined;

beforeAll(async () => {
  t = await createTestApp();
  const login = async (username: string) =>
    (
      await t.json<LoginResponse>('/backend/auth/login', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username, password: 'demo1234' }),
      })
    ).body;
  accounts = { merchant: await login('merchant'), partner: await login('partner') };
}, 120_000);

afterAll(async () => {
  resetHttp();
  await t?.close();
});

afterEach(() => {
  vi.restoreAllMocks();
  cleanup();
  actors?.stop();
  actors = undefined;
  forgetMe();
  localStorage.clear();
  sessionStorage.clear();
});

/** Requests the app made (path), and how the session's start-up restore ended, in the current test. */
let requests: string[] = [];
let restoreEvents: string[] = [];

/** The real edge at `path`, its HTTP going to the real server app; happy-dom's storages unless told otherwise. */
function startActors(path: string, stores?: SessionStores): RootActors {
  history.replaceState(null, '', path);
  requests = [];
  restoreEvents = [];
  const a = createRootActors({
    stores: stores ?? { local: localStorage, session: sessionStorage },
    navigate: (to, opts) => navigate(to, { replace: opts?.replace ?? false }),
    currentPath: () => location.pathname + location.search,
    fetch: ((input: RequestInfo | URL, init?: RequestInit) => {
      requests.push(String(input));
      return t.app.request(String(input), init);
    }) as typeof fetch,
    inspect: (ev) => {
      // How the start-up restore ended, as the session actor received it.
      if (ev.type === '@xstate.event' && ev.event.type.endsWith('.actor.restoreSession')) {
        restoreEvents.push(ev.event.type);
      }
    },
  });
  actors = a;
  return a;
}

/** Renders the real app at `path` with the real edge and waits for the session to be restored. */
async function renderApp(path: string, stores?: SessionStores): Promise<RootActors> {
  const a = startActors(path, stores);
  render(<App actors={a} />);
  await waitFor(() => expect(a.session.getSnapshot().matches('restoring')).toBe(false));
  return a;
}

/**
 * Storages whose local storage throws when it is first reached (as a blocked one can), then reads as happy-dom's.
 * The edge reads inside try/catch, so reaching the storage is the one way the start-up restore can fail.
 */
function storesThrowingOnce(): SessionStores {
  let reached = false;
  return {
    get local() {
      if (!reached) {
        reached = true;
        throw new DOMException('The operation is insecure.', 'SecurityError');
      }
      return localStorage;
    },
    session: sessionStorage,
  };
}

function store(token: string | null, user: unknown) {
  if (token) localStorage.setItem('token', token);
  if (user) localStorage.setItem('user', JSON.stringify(user));
}

/** Generated paths begin with the machine's own `xstate.init` step, which the app plays by starting. */
function withoutInit<P extends { steps: { event: { type: string } }[] }>(p: P): P {
  return { ...p, steps: p.steps.filter((s) => s.event.type !== 'xstate.init') };
}

const dock = () => screen.queryByRole('navigation', { name: '底部导航' });

async function signInThroughForm(username: string) {
  await act(async () => navigate('/admin-login'));
  fireEvent.change(await screen.findByLabelText('用户名'), { target: { value: username } });
  fireEvent.change(screen.getByLabelText('密码'), { target: { value: 'demo1234' } });
  fireEvent.click(screen.getByRole('button', { name: '登录' }));
  await waitFor(() => expect(location.pathname).not.toBe('/admin-login'));
}

describe('session paths on the rendered app', () => {
  const paths = getShortestPaths(sessionMachine, {
    events: sessionEventsFor as never,
    serializeState: (s) => serializeSession(s as SessionSnapshot),
  }).map(withoutInit);

  it.each(
    paths
      .filter((p) => p.steps.length > 0)
      .map((p) => [p.steps.map((s) => s.event.type).join(' > '), p] as const),
  )(
    '%s',
    async (_, path) => {
      const [first, ...rest] = path.steps as { event: ModelEvent; state: SessionSnapshot }[];
      // The start-up step is the storage the app finds: a real token and user, a token alone, nothing, or a
      // storage that cannot be reached (a real token waits in it, but the restore fails before reading it).
      let stores: SessionStores | undefined;
      if (first!.event.type === 'xstate.done.actor.restoreSession') {
        const { output } = first!.event;
        store(output.token ? accounts.partner.token : null, output.user ? accounts.partner.user : null);
      } else if (first!.event.type === 'xstate.error.actor.restoreSession') {
        stores = withStoredThenUnreachable();
      }
      const a = await renderApp('/profile', stores);
      if (first!.event.type.startsWith('xstate.')) {
        expect(restoreEvents[0]).toBe(first!.event.type);
        expect(a.session.getSnapshot().value).toEqual(first!.state.value);
      } else {
        await play(a, first!.event);
        expect(a.session.getSnapshot().value).toEqual(first!.state.value);
      }
      await expectSessionUi(a);
      for (const step of rest) {
        await play(a, step.event);
        expect(a.session.getSnapshot().value).toEqual(step.state.value);
        await expectSessionUi(a);
      }
    },
    30_000,
  );

  // Its end state (anonymous, nothing known) is also reached by an empty storage, so the generated shortest paths
  // never take the failing restore: it is played here on its own, then a sign-in to show the app recovers.
  it('xstate.error.actor.restoreSession > session.login', async () => {
    const a = await renderApp('/profile', withStoredThenUnreachable());
    expect(restoreEvents).toEqual(['xstate.error.actor.restoreSession']);
    expect(a.session.getSnapshot().value).toBe('anonymous');
    await expectSessionUi(a);
    await play(a, { type: 'session.login', token: '', user: {} });
    expect(a.session.getSnapshot().value).toBe('authenticated');
    await expectSessionUi(a);
  });

  function withStoredThenUnreachable(): SessionStores {
    store(accounts.partner.token, accounts.partner.user);
    return storesThrowingOnce();
  }

  async function play(a: RootActors, event: ModelEvent) {
    const snap = a.session.getSnapshot();
    if (event.type === 'session.login' && !snap.matches('restoring')) {
      await signInThroughForm('merchant');
    } else if (event.type === 'session.logout' && snap.matches('authenticated')) {
      await act(async () => navigate('/profile'));
      fireEvent.click(await screen.findByRole('button', { name: '退出登录' }));
      const dialog = await screen.findByRole('dialog', { hidden: true });
      fireEvent.click(within(dialog).getByRole('button', { name: '退出登录', hidden: true }));
      await waitFor(() => expect(a.session.getSnapshot().matches('loggedOut')).toBe(true));
    } else if (event.type === 'http.unauthorized') {
      // A real 401: the server refuses a revoked token.
      localStorage.setItem('token', 'revoked-or-unknown-token');
      await act(async () => {
        await import('../../src/http/staff-api').then((m) => m.staffApi.me()).catch(() => undefined);
      });
    } else {
      // Events the state ignores: sent as they are, nothing may change.
      a.session.send(event as never);
    }
  }

  async function expectSessionUi(a: RootActors) {
    const s = a.session.getSnapshot();
    if (s.matches('anonymous') && restoreEvents.includes('xstate.error.actor.restoreSession')) {
      // The restore failed: no user is known, yet the page the token opens still works and nothing alarms the
      // person (the stored token is read again by the guard and the HTTP client once storage answers).
      expect(s.context.user).toBeNull();
      expect((await screen.findByTestId('profile-name')).textContent).toBe('未命名用户');
      expect(location.pathname).toBe('/profile');
      expect(screen.queryByRole('alert')).toBeNull();
    } else if (s.matches('loggedOut') || (s.matches('anonymous') && !localStorage.getItem('token'))) {
      await screen.findByRole('heading', { name: '管理员登录' });
      expect(location.pathname).toBe('/admin-login');
      expect(dock()).toBeNull();
      if (s.matches('loggedOut')) {
        expect([localStorage.getItem('token'), sessionStorage.getItem('token')]).toEqual([null, null]);
      }
    } else if (s.matches('anonymous')) {
      // A token without a readable user: the guard lets the page open, the name is unknown.
      expect((await screen.findByTestId('profile-name')).textContent).toBe('未命名用户');
    } else if (s.matches('authenticated')) {
      await waitFor(() => expect(dock()).not.toBeNull());
      const labels = within(dock()!)
        .getAllByRole('button')
        .map((b) => b.textContent);
      expect(labels).toEqual(s.context.user?.level === 3 ? ['钱包', '我的'] : ['首页', '我的']);
      // The profile reads the session signals: the signed-in name, role and level, never stale ones.
      await act(async () => navigate('/profile'));
      expect((await screen.findByTestId('profile-name')).textContent).toBe(s.context.user?.name);
      const want = { 2: ['商户', '2'], 3: ['分润合伙人', '3'] }[s.context.user?.level as 2 | 3];
      expect(want, `level ${s.context.user?.level}`).toBeDefined();
      expect(profileRow('角色')).toBe(want![0]);
      expect(profileRow('级别')).toBe(want![1]);
    }
  }
});

/** The value shown in the profile's row `label` (角色, 级别, ...). */
function profileRow(label: string): string | null {
  const row = screen.getByText(label, { selector: 'li > span' }).closest('li')!;
  return row.lastElementChild!.textContent;
}

describe('start-up with an unreadable stored user', () => {
  it('logs Failed to parse user data while restoring (before any request), stays anonymous, shows no error', async () => {
    // Observed only: what reaches the console is read, nothing is replaced.
    const errors = vi.spyOn(console, 'error');
    const warnings = vi.spyOn(console, 'warn');
    const logged = () => [...errors.mock.calls, ...warnings.mock.calls].map((c) => String(c[0]));
    localStorage.setItem('token', accounts.merchant.token);
    localStorage.setItem('user', '{bad json');
    const a = startActors('/profile');
    await waitFor(() => expect(a.session.getSnapshot().matches('restoring')).toBe(false));
    // Start-up alone: the session is restored and nothing has been requested yet.
    expect(requests).toEqual([]);
    expect(logged()).toContain(PARSE_ERROR_MESSAGE);
    expect(a.session.getSnapshot().value).toBe('anonymous');
    expect(a.session.getSnapshot().context.user).toBeNull();
    // Then the app: the token still opens the page; the person sees no error, only an unnamed account.
    render(<App actors={a} />);
    expect((await screen.findByTestId('profile-name')).textContent).toBe('未命名用户');
    expect(location.pathname).toBe('/profile');
    expect(screen.queryByRole('alert')).toBeNull();
    expect(document.body.textContent).not.toMatch(/Failed to parse|JSON|错误|失败/);
  });
});

describe('opening / on the rendered app', () => {
  it.each([
    ['partner', '/wallet', ['钱包', '我的']],
    ['merchant', '/dashboard', ['首页', '我的']],
  ] as const)('%s opening / lands on %s with %j', async (who, landing, tabs) => {
    store(accounts[who].token, accounts[who].user);
    const a = await renderApp('/');
    await waitFor(() => expect(location.pathname).toBe(landing));
    await waitFor(() => expect(dock()).not.toBeNull());
    expect(
      within(dock()!)
        .getAllByRole('button')
        .map((b) => b.textContent),
    ).toEqual(tabs);
    expect(a.tabBar.getSnapshot().context.pathname).toBe(landing);
  });
});

describe('tab-bar paths on the rendered app', () => {
  const paths = getShortestPaths(tabBarMachine, {
    events: tabEventsFor,
    serializeState: (s) => serializeTabBar(s as TabBarSnapshot),
  }).map(withoutInit);
  /** The URL a model path stands for (the pay page needs its query to stay put). */
  const urlOf = (p: string) => (p === '/user/pay' ? '/user/pay?device_id=1&venue_id=1' : p);
  const accountOf = (level: number | null) => (level === 3 ? accounts.partner : accounts.merchant);

  it.each(
    paths
      .filter((p) => p.steps.length > 0)
      .map((p) => [p.steps.map((s) => JSON.stringify(s.event)).join(' > '), p] as const),
  )(
    '%s',
    async (_, path) => {
      const [load, ...rest] = path.steps as { event: TabBarEvent; state: TabBarSnapshot }[];
      if (load!.event.type !== 'tab.load') throw new Error('paths start with tab.load');
      const account = accountOf(load!.event.level);
      store(account.token, load!.event.level === null ? null : account.user);
      const { pathname, search } = load!.event;
      const a = await renderApp(search ? `${pathname}?${search}` : pathname);
      await expectTabUi(a, load!.state);
      for (const step of rest) {
        const e = step.event;
        if (e.type === 'route.changed') {
          await act(async () => navigate(urlOf(e.pathname)));
        } else if (e.type === 'session.changed') {
          const acc = accountOf(e.level);
          await act(async () => a.session.send({ type: 'session.login', token: acc.token, user: acc.user }));
        } else if (e.type === 'tab.select') {
          const button = dock() && within(dock()!).queryByRole('button', { name: labelOf(e.path) });
          if (button) fireEvent.click(button);
          else a.tabBar.send(e);
          // A tap navigates; the router then tells the machine about the new route.
          if (button) {
            await waitFor(() => expect(location.pathname).toBe(e.path));
            await expectTabUi(
              a,
              { ...step.state, context: { ...step.state.context, pathname: e.path } } as TabBarSnapshot,
              true,
            );
            continue;
          }
        } else {
          a.tabBar.send(e);
        }
        await expectTabUi(a, step.state);
      }
    },
    30_000,
  );

  function labelOf(path: string) {
    return path === '/dashboard' ? '首页' : path === '/wallet' ? '钱包' : '我的';
  }

  async function expectTabUi(a: RootActors, expected: TabBarSnapshot, afterTap = false) {
    await waitFor(() => {
      const s = a.tabBar.getSnapshot();
      if (!afterTap) expect(serializeTabBar(s)).toBe(serializeTabBar(expected));
      expect(location.pathname).toBe(s.context.pathname);
      const bar = dock();
      if (!s.matches('visible')) {
        expect(bar).toBeNull();
        return;
      }
      expect(bar).not.toBeNull();
      const buttons = within(bar!).getAllByRole('button');
      expect(buttons.map((b) => b.textContent)).toEqual(selectTabs(s).map((tab) => tab.label));
      const active = buttons
        .filter((b) => b.getAttribute('aria-current') === 'page')
        .map((b) => b.textContent);
      const want = selectActiveTab(s);
      expect(active).toEqual(want ? [labelOf(want)] : []);
    });
  }
});
