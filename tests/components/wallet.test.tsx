// @vitest-environment node
import './user-dom';
/**
 * `/wallet` rendered against the real server in process (real app, real database, the demo partner's token): the
 * partner's own profit-sharing rules, the balances, an amount under 1 yuan refused before any request, the confirmation, a double tap sending once, and
 * an answer lost on the way back: the retry sends the same Idempotency-Key and the server keeps one request.
 */
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withdrawals } from '../../server/db/schema';
import { forgetMe } from '../../src/app/staff-features';
import type { LoginResponse } from '../../src/domain/api';
import { ROUTES } from '../../src/domain/routes';
import { configureHttp, resetHttp } from '../../src/http/client';
import WalletScreen from '../../src/screens/main/wallet';
import { accountByUsername, credit } from '../server/withdrawals/wallet-fixtures';
import { createTestApp, postJson, type TestApp } from '../server/test-app';

let t: TestApp;
const route = ROUTES.find((r) => r.id === 'wallet')!;
const posts: { key: string | null }[] = [];
/** When set, the next withdrawal POST reaches the server but its answer is lost (a dropped connection). */
let loseNextAnswer = false;

beforeAll(async () => {
  t = await createTestApp();
  await credit(t.deps.db, await accountByUsername(t.deps.db, 'partner'), 5000);
  const { body } = await t.json<LoginResponse>(
    '/backend/auth/login',
    postJson({ username: 'partner', password: 'demo1234' }),
  );
  localStorage.setItem('token', body.token);
  localStorage.setItem('user', JSON.stringify(body.user));
  configureHttp({
    baseURL: '/backend',
    stores: { local: localStorage, session: sessionStorage },
    navigate: (p) => window.history.pushState(null, '', p),
    currentPath: () => window.location.pathname + window.location.search,
    log: () => {},
    fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = String(input);
      if (init?.method === 'POST' && url.endsWith('/wallet/withdrawals')) {
        posts.push({ key: new Headers(init.headers).get('Idempotency-Key') });
        const res = await t.app.request(url, init);
        if (loseNextAnswer) {
          loseNextAnswer = false;
          throw new TypeError('Failed to fetch');
        }
        return res;
      }
      return t.app.request(url, init);
    }) as typeof fetch,
  });
}, 60_000);

afterAll(async () => {
  cleanup();
  resetHttp();
  forgetMe();
  localStorage.clear();
  await t?.close();
});

const partnerRequests = async () => {
  const partner = await accountByUsername(t.deps.db, 'partner');
  return t.deps.db.select().from(withdrawals).where(eq(withdrawals.account_id, partner.id));
};

describe('/wallet screen', () => {
  it("shows the partner's own profit-sharing rules with the ratio and since when it applies", async () => {
    render(<WalletScreen route={route} params={{}} />);
    const rules = await screen.findAllByTestId('my-share-rule');
    expect(rules).toHaveLength(1);
    expect(rules[0]!.textContent).toContain('星河广场店');
    expect(rules[0]!.textContent).toContain('20%');
    expect(rules[0]!.textContent).toMatch(/自 .+ 起生效/);
    cleanup();
  });

  it('validates before sending, confirms, sends once on a double tap, and retries with the same key', async () => {
    render(<WalletScreen route={route} params={{}} />);
    await waitFor(() => expect(screen.getByTestId('available').textContent).toBe('¥50.00'));

    fireEvent.click(screen.getByRole('button', { name: '申请提现' }));
    const amount = screen.getByLabelText('提现金额（元）');
    fireEvent.change(amount, { target: { value: '0.99' } });
    fireEvent.click(screen.getByRole('button', { name: '下一步' }));
    await screen.findByText('提现金额至少 1 元');
    fireEvent.change(amount, { target: { value: '60' } });
    fireEvent.click(screen.getByRole('button', { name: '下一步' }));
    await screen.findByText('超过可提现金额 ¥50.00');
    expect(posts).toEqual([]);

    // Double tap on the confirmation: one request.
    fireEvent.change(amount, { target: { value: '12.5' } });
    fireEvent.click(screen.getByRole('button', { name: '下一步' }));
    await screen.findByText('确认提现？');
    const confirm = screen.getByRole('button', { name: '确认提现' });
    fireEvent.click(confirm);
    fireEvent.click(confirm);
    await screen.findByText('提现申请已提交，金额已冻结');
    expect(posts).toHaveLength(1);
    await waitFor(() => expect(screen.getByTestId('frozen').textContent).toBe('¥12.50'));

    // The answer is lost: the retry sends the same key and the server keeps one request.
    loseNextAnswer = true;
    fireEvent.click(screen.getByRole('button', { name: '申请提现' }));
    fireEvent.change(screen.getByLabelText('提现金额（元）'), { target: { value: '20' } });
    fireEvent.click(screen.getByRole('button', { name: '下一步' }));
    fireEvent.click(await screen.findByRole('button', { name: '确认提现' }));
    fireEvent.click(await screen.findByRole('button', { name: '重试' }));
    await screen.findByText('提现申请已提交，金额已冻结');
    expect(posts).toHaveLength(3);
    expect(posts[2]!.key).toBe(posts[1]!.key);
    expect(posts[1]!.key).not.toBe(posts[0]!.key);
    const rows = await partnerRequests();
    expect(rows.map((r) => r.amount_fen).sort((a, b) => a - b)).toEqual([1250, 2000]);
    await waitFor(() => expect(screen.getByTestId('available').textContent).toBe('¥17.50'));
    // The requests list reloads with its own request, answered in its own turn.
    await waitFor(() => expect(screen.getAllByTestId('own-withdrawal')).toHaveLength(2));
  });
});
