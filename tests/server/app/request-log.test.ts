/**
 * One log line per request: `method path status ms id`, with the id echoed in X-Request-Id (so a user's report
 * can be matched to the log). The middleware is exercised in a bare Hono app; console.log is only observed.
 */
import { Hono } from 'hono';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AppEnv } from '../../../server/context';
import { requestLog } from '../../../server/lib/request-log.middleware';

afterEach(() => vi.restoreAllMocks());

function app(log: boolean) {
  const a = new Hono<AppEnv>();
  a.use('*', requestLog({ log }));
  a.get('/backend/ok', (c) => c.json({ ok: true }));
  a.get('/backend/boom', (c) => c.json({ code: 'X', message: '坏了' }, 418));
  return a;
}

describe('request log', () => {
  it('writes exactly one line per request with method, path, status, duration and the request id', async () => {
    const lines: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void lines.push(args.join(' ')));
    const a = app(true);
    const ok = await a.request('/backend/ok', { headers: { 'X-Request-Id': 'proxy-id-1' } });
    const boom = await a.request('/backend/boom');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^GET \/backend\/ok 200 \d+\.\dms proxy-id-1$/);
    expect(ok.headers.get('X-Request-Id')).toBe('proxy-id-1');
    const id = boom.headers.get('X-Request-Id')!;
    expect(id).toMatch(/^[0-9a-f]{8}$/);
    expect(lines[1]).toMatch(new RegExp(`^GET \\/backend\\/boom 418 \\d+\\.\\dms ${id}$`));
  });

  it('ignores an unsafe incoming request id and can be switched off', async () => {
    const lines: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void lines.push(args.join(' ')));
    const res = await app(false).request('/backend/ok', {
      headers: { 'X-Request-Id': 'bad id; with spaces' },
    });
    expect(res.headers.get('X-Request-Id')).toMatch(/^[0-9a-f]{8}$/);
    expect(lines).toHaveLength(0);
  });
});
