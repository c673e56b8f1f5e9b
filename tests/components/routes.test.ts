/**
 * The route table as the router uses it: the 33 paths of docs/decisions.md D1, a screen module for each, and the
 * redirect rules (alias, `/`, the pay query rule, the guard and its exemptions).
 */
import { describe, expect, it } from 'vitest';
import { redirectFor } from '../../src/app/app-routes';
import { hasScreen, screenKeys } from '../../src/app/screen-registry';
import { ROUTES, effectivePath, matchRoute } from '../../src/domain/routes';

const SPEC_PATHS = [
  '/admin-login',
  '/wechat-login',
  '/',
  '/dashboard',
  '/wallet',
  '/profile',
  '/admin/permissions',
  '/admin/products',
  '/admin/merchants',
  '/admin/merchants/add',
  '/admin/merchants/:id',
  '/sub-users/sub-users',
  '/sub-users/profit-sharing',
  '/merchant/venues',
  '/merchant/packages',
  '/merchant/devices',
  '/merchant/members',
  '/merchant/withdrawals',
  '/reports/device-usage',
  '/reports/recharge',
  '/reports/cash',
  '/reports/consumption',
  '/daily/recharge',
  '/daily/cash',
  '/user/pay',
  '/user/using',
  '/user/profile',
  '/user/recharge-history',
  '/user/consumption-history',
  '/user/feedback',
  '/employee/cash-recharge',
  '/employee/remote-start',
  '/employee/device-charging',
];
/** Routes added by decision beyond the spec's: the feedback inbox (docs/decisions.md D17). */
const DECIDED_PATHS = ['/merchant/feedback'];

describe('route table', () => {
  it('has exactly the 33 paths of the spec, plus the decided ones', () => {
    expect(SPEC_PATHS).toHaveLength(33);
    expect(ROUTES.map((r) => r.path).sort()).toEqual([...SPEC_PATHS, ...DECIDED_PATHS].sort());
  });

  it('every route but / has a lazily loaded screen module', () => {
    for (const r of ROUTES.filter((r) => r.path !== '/')) expect(hasScreen(r.screen), r.screen).toBe(true);
  });

  it('the lazy registry holds routed screens only (pieces live in parts/ or shared/, off the entry chunk)', () => {
    const routed = new Set(ROUTES.map((r) => r.screen));
    expect(screenKeys().filter((k) => !routed.has(k))).toEqual([]);
  });

  it('/daily/cash shows the cash report screen; add and edit share the merchant screen', () => {
    expect(matchRoute('/daily/cash')?.route.screen).toBe(matchRoute('/reports/cash')?.route.screen);
    expect(matchRoute('/admin/merchants/add')?.route.id).toBe('admin-merchant-add');
    expect(matchRoute('/admin/merchants/12')?.params).toEqual({ id: '12' });
    expect(matchRoute('/admin/merchants/add')?.route.screen).toBe(
      matchRoute('/admin/merchants/12')?.route.screen,
    );
  });

  it.each([
    // [path, search, has token, where it goes]
    ['/login', '', false, '/admin-login'],
    ['/', '', true, '/dashboard'],
    ['/', '', false, '/dashboard'],
    ['/dashboard', '', false, '/admin-login'],
    ['/dashboard', '', true, null],
    ['/admin/merchants/3', '', false, '/admin-login'],
    ['/no/such/page', '', false, '/admin-login'],
    ['/no/such/page', '', true, null],
    ['/admin-login', '', false, null],
    ['/wechat-login', '?redirect=%2Fuser%2Fpay', false, null],
    ['/user/pay', '', false, '/'],
    ['/user/pay', '?device_id=1', false, '/'],
    ['/user/pay', '?venue_id=1', true, '/'],
    ['/user/pay', '?device_id=1&venue_id=2', false, null],
    ['/user/using', '', false, null],
    ['/user/profile', '', false, null],
    ['/user/recharge-history', '', false, null],
    ['/user/consumption-history', '', false, null],
    ['/user/feedback', '?device_id=3', false, null],
  ] as const)('%s%s (token: %s) -> %s', (path, search, token, to) => {
    expect(redirectFor(path, search, token)).toBe(to);
  });

  it.each([
    // [path, search, where it lands once the table's redirects have run (the guard aside)]
    ['/', '', '/dashboard'],
    ['/login', '?x=1', '/admin-login'],
    ['/user/pay', '', '/dashboard'],
    ['/user/pay', '?device_id=1', '/dashboard'],
    ['/user/pay', '?device_id=1&venue_id=2', '/user/pay'],
    ['/wallet', '', '/wallet'],
    ['/merchant/venues', '', '/merchant/venues'],
    ['/no/such/page', '', '/no/such/page'],
  ] as const)('effective path of %s%s is %s', (path, search, to) => {
    expect(effectivePath(path, search)).toBe(to);
  });
});
