/**
 * The level x feature matrix stored in `permissions` (docs/decisions.md D4). Reading needs the admin.permissions feature;
 * changing it is level 1 only, and level 1 always keeps every feature.
 */
import { Hono } from 'hono';
import { sql } from 'drizzle-orm';
import { FEATURES } from '../../../src/domain/levels';
import {
  PermissionsUpdateSchema,
  type PermissionRow,
  type PermissionsMatrix,
} from '../../../src/domain/permissions.schema';
import type { AppEnv } from '../../context';
import type { Db } from '../../db/client';
import { permissions } from '../../db/schema';
import { writeAudit } from '../../services/audit';
import { validationFailed } from '../../lib/errors';
import { parseJson } from '../../lib/validate';
import { requireAdmin, requireStaff, staffOf } from '../../auth/staff.middleware';

export async function readMatrix(db: Db): Promise<PermissionsMatrix> {
  const rows = await db.select().from(permissions);
  const stored = new Map(rows.map((r) => [`${r.level}:${r.feature}`, r.allowed]));
  const items: PermissionRow[] = [];
  for (const level of [1, 2, 3, 4]) {
    for (const feature of FEATURES) {
      items.push({ level, feature, allowed: level === 1 || stored.get(`${level}:${feature}`) === true });
    }
  }
  return { levels: [1, 2, 3, 4], features: [...FEATURES], items };
}

export function permissionsRoutes() {
  const r = new Hono<AppEnv>();

  r.get('/', requireStaff('admin.permissions'), async (c) => c.json(await readMatrix(c.var.deps.db)));

  r.put('/', requireAdmin(), async (c) => {
    const { db } = c.var.deps;
    const staff = staffOf(c);
    const body = await parseJson(c, PermissionsUpdateSchema);
    const reduced = body.items.findIndex((i) => i.level === 1 && !i.allowed);
    if (reduced >= 0) throw validationFailed({ [`items.${reduced}.allowed`]: '平台管理员的权限不能取消' });
    await db.transaction(async (tx) => {
      await tx
        .insert(permissions)
        .values(body.items)
        .onConflictDoUpdate({
          target: [permissions.level, permissions.feature],
          set: { allowed: sql`excluded.allowed` },
        });
      await writeAudit(tx, staff, {
        action: 'permissions.update',
        entity: 'permissions',
        extra: { items: body.items },
      });
    });
    return c.json(await readMatrix(db));
  });

  return r;
}
