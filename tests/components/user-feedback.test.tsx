// @vitest-environment node
import './user-dom';
/**
 * `/user/feedback` rendered against the real server in process: the device prefilled from `?device_id=`, the
 * form's validation (FeedbackRequestSchema) before any request, a real submission listed with 等待商家回复, and
 * the merchant's reply shown once the database holds one.
 */
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { feedback } from '../../server/db/schema';
import { ROUTES } from '../../src/domain/routes';
import { configureHttp, resetHttp } from '../../src/http/client';
import FeedbackScreen from '../../src/screens/user/feedback';
import { createTestApp, ONLINE_WORLD, type TestWorld } from '../server/test-app';

let world: TestWorld;
let cookie = '';
let memberId = 0;
const route = ROUTES.find((r) => r.id === 'user-feedback')!;

beforeAll(async () => {
  world = await createTestApp(ONLINE_WORLD);
  const signed = await world.signIn('component-feedback');
  cookie = signed.cookie;
  memberId = signed.member_id;
  configureHttp({
    baseURL: '/backend',
    navigate: (p) => window.history.pushState(null, '', p),
    currentPath: () => window.location.pathname + window.location.search,
    log: () => {},
    fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
      const headers = new Headers(init?.headers);
      headers.set('cookie', cookie);
      return world.app.request(String(input), { ...init, headers });
    }) as typeof fetch,
  });
}, 60_000);

afterAll(async () => {
  cleanup();
  resetHttp();
  await world?.close();
});

const rows = () => world.database.db.select().from(feedback).where(eq(feedback.member_id, memberId));

describe('/user/feedback screen', () => {
  it('validates, submits, lists, and shows the merchant reply', async () => {
    window.history.replaceState(null, '', '/user/feedback?device_id=1');
    const view = render(<FeedbackScreen route={route} params={{}} />);
    await screen.findByText('还没有提交过反馈');
    const deviceInput = screen.getByLabelText('设备编号（选填）') as HTMLInputElement;
    expect(deviceInput.value).toBe('1');

    const text = screen.getByPlaceholderText('请描述遇到的问题（至少 5 个字）');
    fireEvent.change(text, { target: { value: '坏了' } });
    expect(screen.getByTestId('counter').textContent).toBe('2/500');
    fireEvent.click(screen.getByRole('button', { name: '提交反馈' }));
    await screen.findByText('请至少填写 5 个字');
    expect(await rows()).toHaveLength(0);

    fireEvent.change(screen.getByLabelText('问题类型'), { target: { value: 'refund' } });
    fireEvent.change(text, { target: { value: '设备没有启动，但是扣了钱' } });
    fireEvent.click(screen.getByRole('button', { name: '提交反馈' }));
    const row = await screen.findByTestId('feedback-row');
    expect(row.textContent).toContain('设备没有启动，但是扣了钱');
    expect(row.textContent).toContain('退款问题');
    expect(row.textContent).toContain('等待商家回复');
    expect((text as HTMLTextAreaElement).value).toBe('');
    const saved = await rows();
    expect(saved).toHaveLength(1);
    expect(saved[0]).toMatchObject({ category: 'refund', device_id: 1, content: '设备没有启动，但是扣了钱' });

    await world.database.db
      .update(feedback)
      .set({ reply: '已为您退款，请查收', replied_at: new Date() })
      .where(eq(feedback.id, saved[0]!.id));
    view.unmount();
    render(<FeedbackScreen route={route} params={{}} />);
    await waitFor(() => expect(screen.getByText('已为您退款，请查收')).toBeTruthy());
    expect(screen.getByText('商家回复：')).toBeTruthy();
  }, 30_000);
});
