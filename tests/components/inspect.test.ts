/** What the dev-only inspector sends out of the page has its tokens masked. */
import { describe, expect, it } from 'vitest';
import { maskTokens } from '../../src/app/inspect';

describe('inspector masking', () => {
  it('masks token fields at any depth and bearer strings, keeps the rest', () => {
    const event = {
      type: 'session.login',
      token: 'secret-token',
      user: { id: 2, name: '张三', level: 2 },
      nested: [{ headers: { Authorization: 'Bearer abc' } }, 'Bearer xyz'],
    };
    expect(maskTokens(event)).toEqual({
      type: 'session.login',
      token: '***',
      user: { id: 2, name: '张三', level: 2 },
      nested: [{ headers: { Authorization: '***' } }, '***'],
    });
    expect(maskTokens({ token: null, user: null })).toEqual({ token: null, user: null });
  });
});
