/**
 * Every `/backend/*` router, one row per resource, mounted in this order by `createApp` (server/app.ts). A new
 * resource adds its folder `server/routes/<resource>/` and ONE row here (docs/adding-a-resource.md). Order matters
 * only where a prefix is shared: the more specific path comes first.
 */
import type { Hono } from 'hono';
import type { AppEnv } from '../context';
import { authRoutes } from './auth/auth.routes';
import { deviceControlRoutes } from './device-control/device-control.routes';
import { devicesRoutes } from './devices/devices.routes';
import { deviceSecretRoutes } from './devices/device-secret.routes';
import { employeeRoutes } from './employee/employee.routes';
import { merchantsRoutes } from './merchants/merchants.routes';
import { packagesRoutes } from './packages/packages.routes';
import { dailyRoutes, reportsRoutes } from './reports/reports.routes';
import { venuesRoutes } from './venues/venues.routes';
import { walletRoutes } from './wallet/wallet.routes';
import { adminWithdrawalsRoutes, merchantWithdrawalsRoutes } from './withdrawals/withdrawals.routes';
import { consumptionRoutes } from './consumption/consumption.routes';
import { dashboardRoutes } from './dashboard/dashboard.routes';
import { feedbackRoutes } from './feedback/user-feedback.routes';
import { feedbackInboxRoutes } from './feedback/feedback-inbox.routes';
import { membersRoutes } from './members/members.routes';
import { refundsRoutes } from './refunds/refunds.routes';
import { profitSharingRoutes } from './profit-sharing/profit-sharing.routes';
import { subUsersRoutes } from './sub-users/sub-users.routes';
import { healthRoutes } from './health/health.routes';
import { memberRoutes } from './member-auth/member-auth.routes';
import { userPackagesRoutes } from './packages/user-packages.routes';
import { payRoutes } from './pay/pay.routes';
import { permissionsRoutes } from './permissions/permissions.routes';
import { productsRoutes } from './products/products.routes';
import { profileRoutes } from './profile/profile.routes';
import { publicRoutes } from './public/public.routes';
import { queryRoutes } from './query/query.routes';
import { rechargeRoutes } from './recharge/recharge.routes';
import { usingRoutes } from './using/using.routes';
import { notifyRoutes } from './wechat-notify/wechat-notify.routes';

export type RouteRow = readonly [path: string, router: () => Hono<AppEnv>];

export const ROUTES: readonly RouteRow[] = [
  // staff (bearer token)
  ['/backend/health', healthRoutes],
  ['/backend/auth', authRoutes],
  ['/backend/admin/permissions', permissionsRoutes],
  ['/backend/admin/products', productsRoutes],
  // Start and stop first: the devices resource guards all its paths with merchant.devices, employees may start too.
  ['/backend/merchant/devices', deviceControlRoutes],
  ['/backend/merchant/devices', devicesRoutes],
  ['/backend/merchant/devices', deviceSecretRoutes],
  ['/backend/merchant/venues', venuesRoutes],
  ['/backend/merchant/packages', packagesRoutes],
  ['/backend/admin/merchants', merchantsRoutes],
  ['/backend/dashboard', dashboardRoutes],
  ['/backend/reports', reportsRoutes],
  ['/backend/daily', dailyRoutes],
  ['/backend/wallet', walletRoutes],
  ['/backend/merchant/withdrawals', merchantWithdrawalsRoutes],
  ['/backend/admin/withdrawals', adminWithdrawalsRoutes],
  ['/backend/employee', employeeRoutes],
  ['/backend/sub-users', subUsersRoutes],
  ['/backend/profit-sharing', profitSharingRoutes],
  ['/backend/merchant/members', membersRoutes],
  ['/backend/merchant/refunds', refundsRoutes],
  ['/backend/merchant/feedback', feedbackInboxRoutes],

  // public, no sign-in
  ['/backend/api/query', queryRoutes],
  ['/backend/api', publicRoutes],

  // end users (member cookie)
  ['/backend/user', payRoutes],
  ['/backend/user', rechargeRoutes],
  ['/backend/user', consumptionRoutes],
  ['/backend/user', userPackagesRoutes],
  ['/backend/user', profileRoutes],
  ['/backend/user/using', usingRoutes],
  ['/backend/user/feedback', feedbackRoutes],

  // WeChat Pay notifications; member sign-in (/backend/wechat/authorize, /callback, /backend/user/logout)
  ['/backend/wechat/pay', notifyRoutes],
  ['/backend', memberRoutes],
];
