/**
 * Staff levels, roles and the features (one per staff route) a level may open by default.
 * The server stores this matrix in the `permissions` table at seed time; `/admin/permissions` edits it.
 */
export const LEVELS = { admin: 1, merchant: 2, partner: 3, employee: 4 } as const;
export type Role = keyof typeof LEVELS;
export type Level = (typeof LEVELS)[Role];

/** docs/decisions.md D1: default level 1, special level 3 (wallet and me tabs only). */
export const DEFAULT_LEVEL = 1;
export const PARTNER_LEVEL = 3;

export const ROLE_LABELS: Record<Role, string> = {
  admin: '平台管理员',
  merchant: '商户',
  partner: '分润合伙人',
  employee: '员工',
};

export function roleOfLevel(level: number): Role | undefined {
  return (Object.keys(LEVELS) as Role[]).find((r) => LEVELS[r] === level);
}

export const FEATURES = [
  'admin.permissions',
  'admin.products',
  'admin.merchants',
  'subUsers.subUsers',
  'subUsers.profitSharing',
  'merchant.venues',
  'merchant.packages',
  'merchant.devices',
  'merchant.members',
  'merchant.withdrawals',
  'merchant.feedback',
  'reports.deviceUsage',
  'reports.recharge',
  'reports.cash',
  'reports.consumption',
  'daily.recharge',
  'daily.cash',
  'employee.cashRecharge',
  'employee.remoteStart',
  'employee.deviceCharging',
  'wallet',
] as const;
export type Feature = (typeof FEATURES)[number];

const ALL: Level[] = [1, 2, 3, 4];
const DEFAULTS: Record<Feature, readonly Level[]> = {
  'admin.permissions': [1],
  'admin.products': [1],
  'admin.merchants': [1],
  'subUsers.subUsers': [1, 2],
  'subUsers.profitSharing': [1, 2],
  'merchant.venues': [1, 2],
  'merchant.packages': [1, 2],
  'merchant.devices': [1, 2],
  'merchant.members': [1, 2],
  'merchant.withdrawals': [1, 2],
  'merchant.feedback': [1, 2],
  'reports.deviceUsage': [1, 2],
  'reports.recharge': [1, 2],
  'reports.cash': [1, 2],
  'reports.consumption': [1, 2],
  'daily.recharge': [1, 2, 4],
  'daily.cash': [1, 2, 4],
  'employee.cashRecharge': [1, 4],
  'employee.remoteStart': [1, 4],
  'employee.deviceCharging': [1, 4],
  wallet: [1, 2, 3],
};

/** The default matrix as rows, the shape stored in the `permissions` table. Level 1 keeps every feature. */
export function defaultPermissionRows(): { level: Level; feature: Feature; allowed: boolean }[] {
  return ALL.flatMap((level) =>
    FEATURES.map((feature) => ({
      level,
      feature,
      allowed: level === 1 || DEFAULTS[feature].includes(level),
    })),
  );
}

export function defaultFeaturesOf(level: number): Feature[] {
  return FEATURES.filter((f) => level === 1 || (DEFAULTS[f] as readonly number[]).includes(level));
}
