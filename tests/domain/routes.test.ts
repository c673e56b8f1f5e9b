import { describe, expect, it } from 'vitest';
import { isGuardExempt, isTabBarHidden, payQueryIsValid } from '../../src/domain/routes';

describe('guard exemptions (docs/decisions.md D1)', () => {
  it.each([
    '/admin-login',
    '/wechat-login',
    '/login',
    '/user/pay',
    '/user/using',
    '/user/profile',
    '/user/recharge-history',
    '/user/consumption-history',
    '/user/feedback',
    '/api/devices/1',
    '/api/venues/2',
    '/api/venue-service-prices',
    '/api/query',
    '/api/members/user/3',
  ])('%s needs no token', (path) => expect(isGuardExempt(path)).toBe(true));

  it.each([
    '/',
    '/dashboard',
    '/wallet',
    '/profile',
    '/merchant/venues',
    '/admin/merchants/3',
    '/api/other',
    '/users',
  ])('%s needs a token', (path) => expect(isGuardExempt(path)).toBe(false));
});

describe('tab bar visibility and the pay query rule', () => {
  it('hides the tab bar on /user/, /admin-login, /wechat-login and /login only', () => {
    for (const p of ['/user/pay', '/user/feedback', '/admin-login', '/wechat-login', '/login'])
      expect(isTabBarHidden(p)).toBe(true);
    for (const p of ['/dashboard', '/wallet', '/profile', '/merchant/devices'])
      expect(isTabBarHidden(p)).toBe(false);
  });

  it('needs both device_id and venue_id on /user/pay', () => {
    expect(payQueryIsValid('?device_id=1&venue_id=2')).toBe(true);
    expect(payQueryIsValid('?device_id=1')).toBe(false);
    expect(payQueryIsValid('?venue_id=2')).toBe(false);
    expect(payQueryIsValid('?device_id=&venue_id=2')).toBe(false);
  });
});
