// @vitest-environment node
import './user-dom';
/**
 * The staff sheet 处理异常退款 against the real server in process (real app, database, WeChat sandbox, the demo
 * merchant's token): a WeChat refund ended ABNORMAL; a bad card number is refused before any request with the
 * shared schema's message; the confirmation says where the money goes (bank, holder, last four digits); confirming
 * sends one POST and the refund is on its way to that card, the number stored only encrypted. The sheet runs on the
 * shared form machine: a refusal of the server shows in the sheet, and closing a changed form asks first.
 */
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgetMe } from '../../src/app/staff-features';
import type { LoginResponse } from '../../src/domain/api';
import { configureHttp, resetHttp } from '../../src/http/client';
import { AbnormalRefundSheet } from '../../src/screens/merchant/parts/abnormal-refund-sheet';
import { demoDevices } from '../server/money/money-harness';
import { payByWechat, refundsOf } from '../server/refunds/refund-helpers';
import { createTestApp, ONLINE_WORLD, postJson, type TestApp } from '../server/test-app';

let t: TestApp<typeof ONLINE_WORLD>;
const posts: string[] = [];

beforeAll(async () => {
  t = await createTestApp(ONLINE_WORLD);
  const { body } = await t.json<LoginResponse>(
    '/backend/auth/login',
    postJson({ username: 'merchant', password: 'demo1234' }),
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
      if (init?.method === 'POST') posts.push(String(input));
      return t.app.request(String(input), init);
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

describe('处理异常退款', () => {
  it('checks the card, confirms in words, then sends the refund to the member’s card', async () => {
    const [device] = await demoDevices(t);
    const { cookie } = await t.signIn('o-sheet-abnormal');
    const paid = await payByWechat(t, cookie, device!, { refuse: true, refundOutcome: 'abnormal' });
    await t.settle();
    const [row] = await refundsOf(t, paid.order_id);
    expect(row!.status).toBe('abnormal');

    const done: [string, boolean][] = [];
    render(
      <AbnormalRefundSheet
        refund={{ id: row!.id, status: 'abnormal', amount_fen: row!.amount_fen, created_at: '' }}
        orderNo={paid.order_no}
        onClose={() => undefined}
        onDone={(m, ok) => done.push([m, ok])}
      />,
    );
    expect(screen.getByText(/原路退回失败/).textContent).toContain(paid.order_no);
    fireEvent.change(screen.getByLabelText('开户银行（借记卡）'), { target: { value: 'CMB_DEBIT' } });
    fireEvent.change(screen.getByLabelText('银行卡号'), { target: { value: '6225-88' } });
    fireEvent.change(screen.getByLabelText('收款人姓名'), { target: { value: '王小明' } });
    fireEvent.click(screen.getByRole('button', { name: '下一步' }));
    expect(await screen.findByText('请输入正确的银行卡号（10-30 位数字）')).toBeTruthy();
    expect(posts).toHaveLength(0);

    fireEvent.change(screen.getByLabelText('银行卡号'), { target: { value: '6225 8801 2345 1234' } });
    fireEvent.click(screen.getByRole('button', { name: '下一步' }));
    const summary = await screen.findByTestId('abnormal-summary');
    expect(summary.textContent).toContain('退到 王小明 的招商银行借记卡（尾号 1234）');
    expect(posts).toHaveLength(0);
    fireEvent.click(screen.getByRole('button', { name: '确认提交' }));
    await waitFor(() => expect(done).toEqual([['已提交异常退款，微信处理后更新状态', true]]));
    expect(posts).toEqual([`/backend/merchant/refunds/${row!.id}/abnormal`]);
    const [after] = await refundsOf(t, paid.order_id);
    expect(after!.status === 'abnormal_pending' || after!.status === 'processing').toBe(true);
    expect(after!.abnormal_type).toBe('USER_BANK_CARD');
    expect(after!.abnormal_bank_account).not.toContain('1234');
    cleanup();

    // Opened again on the same refund (already on its way): the server's refusal shows in the sheet, nothing is
    // reported done; closing with a changed form asks first.
    let closed = 0;
    render(
      <AbnormalRefundSheet
        refund={{ id: row!.id, status: 'abnormal', amount_fen: row!.amount_fen, created_at: '' }}
        orderNo={paid.order_no}
        onClose={() => closed++}
        onDone={(m, ok) => done.push([m, ok])}
      />,
    );
    fireEvent.click(screen.getByRole('radio', { name: '退回商户账户' }));
    fireEvent.click(screen.getByRole('button', { name: '下一步' }));
    expect((await screen.findByTestId('abnormal-summary')).textContent).toContain('商户结算银行账户');
    fireEvent.click(screen.getByRole('button', { name: '确认提交' }));
    expect((await screen.findByRole('alert')).textContent).toContain('不是退款异常状态');
    expect(done).toHaveLength(1);
    fireEvent.click(screen.getByRole('button', { name: '取消' }));
    fireEvent.click(await screen.findByRole('button', { name: '放弃修改' }));
    await waitFor(() => expect(closed).toBe(1));
  }, 30_000);
});
