import type { Feature } from './levels';

/**
 * The one route table (docs/decisions.md D3): it drives the router, the guard, lazy loading,
 * tab-bar visibility and the dashboard's tiles. Each route names its screen module (`screen`), which
 * `src/app/screen-registry.ts` loads lazily.
 */
export interface RouteDef {
  /** Stable id; the screen registry and tests refer to it. */
  id: string;
  /** wouter pattern. */
  path: string;
  /** Chinese page title shown in the header and the document title. */
  title: string;
  /** Staff feature required (from the permission matrix); absent = any signed-in staff account. */
  feature?: Feature;
  /** Where the back arrow goes; absent on top-level pages. */
  back?: string;
  /** Section shown on the dashboard tile grid. */
  group?: 'admin' | 'subUsers' | 'merchant' | 'reports' | 'daily' | 'employee' | 'main';
  /** A short icon glyph used by tiles (an emoji keeps the pay path free of icon fonts). */
  icon?: string;
  /** Which screen module renders it (several paths may share one, e.g. the cash report). */
  screen: string;
  /** Standalone pages are outside the main layout (no header/tab bar). */
  standalone?: boolean;
}

export const ROUTES: readonly RouteDef[] = [
  {
    id: 'admin-login',
    path: '/admin-login',
    title: '管理员登录',
    screen: 'auth/admin-login',
    standalone: true,
  },
  {
    id: 'wechat-login',
    path: '/wechat-login',
    title: '微信登录',
    screen: 'auth/wechat-login',
    standalone: true,
  },
  { id: 'root', path: '/', title: '首页', screen: 'main/root-redirect' },
  { id: 'dashboard', path: '/dashboard', title: '首页', screen: 'main/dashboard', group: 'main' },
  {
    id: 'wallet',
    path: '/wallet',
    title: '钱包',
    screen: 'main/wallet',
    feature: 'wallet',
    group: 'main',
    icon: '👛',
  },
  { id: 'profile', path: '/profile', title: '我的', screen: 'main/profile', group: 'main' },

  {
    id: 'admin-permissions',
    path: '/admin/permissions',
    title: '权限管理',
    feature: 'admin.permissions',
    group: 'admin',
    icon: '🔐',
    back: '/dashboard',
    screen: 'admin/permissions',
  },
  {
    id: 'admin-products',
    path: '/admin/products',
    title: '产品管理',
    feature: 'admin.products',
    group: 'admin',
    icon: '📦',
    back: '/dashboard',
    screen: 'admin/products',
  },
  {
    id: 'admin-merchants',
    path: '/admin/merchants',
    title: '商户管理',
    feature: 'admin.merchants',
    group: 'admin',
    icon: '🏪',
    back: '/dashboard',
    screen: 'admin/merchants',
  },
  {
    id: 'admin-merchant-add',
    path: '/admin/merchants/add',
    title: '新增商户',
    feature: 'admin.merchants',
    back: '/admin/merchants',
    screen: 'admin/merchant-edit',
  },
  {
    id: 'admin-merchant-edit',
    path: '/admin/merchants/:id',
    title: '编辑商户',
    feature: 'admin.merchants',
    back: '/admin/merchants',
    screen: 'admin/merchant-edit',
  },

  {
    id: 'sub-users',
    path: '/sub-users/sub-users',
    title: '子账号',
    feature: 'subUsers.subUsers',
    group: 'subUsers',
    icon: '👥',
    back: '/dashboard',
    screen: 'sub-users/sub-users',
  },
  {
    id: 'profit-sharing',
    path: '/sub-users/profit-sharing',
    title: '分润设置',
    feature: 'subUsers.profitSharing',
    group: 'subUsers',
    icon: '🤝',
    back: '/dashboard',
    screen: 'sub-users/profit-sharing',
  },

  {
    id: 'merchant-venues',
    path: '/merchant/venues',
    title: '场地管理',
    feature: 'merchant.venues',
    group: 'merchant',
    icon: '📍',
    back: '/dashboard',
    screen: 'merchant/venues',
  },
  {
    id: 'merchant-packages',
    path: '/merchant/packages',
    title: '充值套餐',
    feature: 'merchant.packages',
    group: 'merchant',
    icon: '🎁',
    back: '/dashboard',
    screen: 'merchant/packages',
  },
  {
    id: 'merchant-devices',
    path: '/merchant/devices',
    title: '设备管理',
    feature: 'merchant.devices',
    group: 'merchant',
    icon: '🔌',
    back: '/dashboard',
    screen: 'merchant/devices',
  },
  {
    id: 'merchant-members',
    path: '/merchant/members',
    title: '会员管理',
    feature: 'merchant.members',
    group: 'merchant',
    icon: '🧑',
    back: '/dashboard',
    screen: 'merchant/members',
  },
  {
    id: 'merchant-withdrawals',
    path: '/merchant/withdrawals',
    title: '提现管理',
    feature: 'merchant.withdrawals',
    group: 'merchant',
    icon: '💸',
    back: '/dashboard',
    screen: 'merchant/withdrawals',
  },
  {
    id: 'merchant-feedback',
    path: '/merchant/feedback',
    title: '用户反馈',
    feature: 'merchant.feedback',
    group: 'merchant',
    icon: '💬',
    back: '/dashboard',
    screen: 'merchant/feedback',
  },

  {
    id: 'report-device-usage',
    path: '/reports/device-usage',
    title: '设备使用报表',
    feature: 'reports.deviceUsage',
    group: 'reports',
    icon: '📊',
    back: '/dashboard',
    screen: 'reports/device-usage',
  },
  {
    id: 'report-recharge',
    path: '/reports/recharge',
    title: '充值报表',
    feature: 'reports.recharge',
    group: 'reports',
    icon: '📈',
    back: '/dashboard',
    screen: 'reports/recharge',
  },
  {
    id: 'report-cash',
    path: '/reports/cash',
    title: '现金报表',
    feature: 'reports.cash',
    group: 'reports',
    icon: '💴',
    back: '/dashboard',
    screen: 'reports/cash',
  },
  {
    id: 'report-consumption',
    path: '/reports/consumption',
    title: '消费报表',
    feature: 'reports.consumption',
    group: 'reports',
    icon: '🧾',
    back: '/dashboard',
    screen: 'reports/consumption',
  },

  {
    id: 'daily-recharge',
    path: '/daily/recharge',
    title: '今日充值',
    feature: 'daily.recharge',
    group: 'daily',
    icon: '📅',
    back: '/dashboard',
    screen: 'daily/recharge',
  },
  {
    id: 'daily-cash',
    path: '/daily/cash',
    title: '今日现金',
    feature: 'daily.cash',
    group: 'daily',
    icon: '💰',
    back: '/dashboard',
    screen: 'reports/cash',
  },

  { id: 'user-pay', path: '/user/pay', title: '扫码支付', screen: 'user/pay', standalone: true },
  { id: 'user-using', path: '/user/using', title: '使用中', screen: 'user/using', standalone: true },
  { id: 'user-profile', path: '/user/profile', title: '个人中心', screen: 'user/profile', standalone: true },
  {
    id: 'user-recharge-history',
    path: '/user/recharge-history',
    title: '充值记录',
    back: '/user/profile',
    screen: 'user/recharge-history',
    standalone: true,
  },
  {
    id: 'user-consumption-history',
    path: '/user/consumption-history',
    title: '消费记录',
    back: '/user/profile',
    screen: 'user/consumption-history',
    standalone: true,
  },
  {
    id: 'user-feedback',
    path: '/user/feedback',
    title: '意见反馈',
    back: '/user/profile',
    screen: 'user/feedback',
    standalone: true,
  },

  {
    id: 'employee-cash-recharge',
    path: '/employee/cash-recharge',
    title: '现金充值',
    feature: 'employee.cashRecharge',
    group: 'employee',
    icon: '💵',
    back: '/dashboard',
    screen: 'employee/cash-recharge',
  },
  {
    id: 'employee-remote-start',
    path: '/employee/remote-start',
    title: '远程启动',
    feature: 'employee.remoteStart',
    group: 'employee',
    icon: '▶️',
    back: '/dashboard',
    screen: 'employee/remote-start',
  },
  {
    id: 'employee-device-charging',
    path: '/employee/device-charging',
    title: '设备运行',
    feature: 'employee.deviceCharging',
    group: 'employee',
    icon: '⚡',
    back: '/dashboard',
    screen: 'employee/device-charging',
  },
];

/** `/login` is an alias of `/admin-login` (docs/decisions.md D2). */
export const ROUTE_ALIASES: Readonly<Record<string, string>> = { '/login': '/admin-login' };

export const GROUP_LABELS: Record<NonNullable<RouteDef['group']>, string> = {
  main: '常用',
  admin: '平台管理',
  subUsers: '子账号与分润',
  merchant: '商户运营',
  reports: '报表',
  daily: '日报',
  employee: '员工工作台',
};

/** docs/decisions.md D1: pages reachable without a staff token. */
const GUARD_EXEMPT_EXACT = ['/admin-login', '/wechat-login', '/login'];
const GUARD_EXEMPT_PREFIXES = [
  '/user/pay',
  '/user/using',
  '/user/profile',
  '/user/recharge-history',
  '/user/consumption-history',
  '/user/feedback',
];

/** docs/decisions.md D1: API paths exempt from the guard (the public device pages' calls and end-user calls). */
const GUARD_EXEMPT_API_PREFIXES = ['/api/devices', '/api/venues', '/api/venue-service-prices', '/api/query'];

export function isGuardExempt(pathname: string): boolean {
  return (
    GUARD_EXEMPT_EXACT.includes(pathname) ||
    GUARD_EXEMPT_PREFIXES.some((p) => pathname.startsWith(p)) ||
    GUARD_EXEMPT_API_PREFIXES.some((p) => pathname.startsWith(p)) ||
    (pathname.startsWith('/api/') && pathname.includes('/user/'))
  );
}

/** docs/decisions.md D1: the tab bar is hidden on these. */
export function isTabBarHidden(pathname: string): boolean {
  return ['/user/', '/admin-login', '/wechat-login', '/login'].some((p) => pathname.startsWith(p));
}

/** docs/decisions.md D1: `/user/pay` needs both `device_id` and `venue_id`, else the visitor goes to `/`. */
export function payQueryIsValid(search: string): boolean {
  const q = new URLSearchParams(search);
  return Boolean(q.get('device_id')) && Boolean(q.get('venue_id'));
}

/** Matches a concrete pathname to its route (params like `:id` match one segment; literal segments win). */
export function matchRoute(
  pathname: string,
): { route: RouteDef; params: Record<string, string> } | undefined {
  const target = ROUTE_ALIASES[pathname] ?? pathname;
  const parts = target.split('/').filter(Boolean);
  let best: { route: RouteDef; params: Record<string, string>; score: number } | undefined;
  for (const route of ROUTES) {
    const segs = route.path.split('/').filter(Boolean);
    if (segs.length !== parts.length) continue;
    const params: Record<string, string> = {};
    let score = 0;
    let ok = true;
    segs.forEach((s, i) => {
      const part = parts[i] ?? '';
      if (s.startsWith(':')) params[s.slice(1)] = decodeURIComponent(part);
      else if (s === part) score += 1;
      else ok = false;
    });
    if (ok && (!best || score > best.score)) best = { route, params, score };
  }
  return best && { route: best.route, params: best.params };
}

/**
 * The route table's own redirects, one hop at a time (docs/decisions.md D1, D2): `/login` is
 * `/admin-login` (query kept), `/` goes to `/dashboard`, `/user/pay` without `device_id` and `venue_id` goes to `/`.
 * Null when the path stays. The guard is not one of them: it depends on the stored token.
 */
export function routeRedirect(pathname: string, search: string): string | null {
  const alias = ROUTE_ALIASES[pathname];
  const query = search.replace(/^\?/, '');
  if (alias) return alias + (query ? `?${query}` : '');
  if (pathname === '/') return '/dashboard';
  if (pathname === '/user/pay' && !payQueryIsValid(search)) return '/';
  return null;
}

/**
 * The pathname a page lands on once the route table's redirects have run (the guard aside): `/` and a pay link
 * without its query land on `/dashboard`, `/login` on `/admin-login`. The tab bar's on-load rule uses it, because
 * at start-up the session can be restored before the router has redirected.
 */
export function effectivePath(pathname: string, search = ''): string {
  let path = pathname;
  let query = search;
  // Each hop moves towards a route that stays; the bound only guards against a future cycle in the table.
  for (let hop = 0; hop < 8; hop += 1) {
    const next = routeRedirect(path, query);
    if (next === null) break;
    const at = next.indexOf('?');
    path = at === -1 ? next : next.slice(0, at);
    query = at === -1 ? '' : next.slice(at + 1);
  }
  return path;
}
