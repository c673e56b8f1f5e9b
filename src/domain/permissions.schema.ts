/**
 * The permission matrix as the API serves and accepts it (`/backend/admin/permissions`), shared by the server's
 * validation and the admin screen's form.
 */
import { z } from 'zod';
import { FEATURES } from './levels';

export const PermissionRowSchema = z.object({
  level: z.number().int().min(1, '级别为 1 到 4').max(4, '级别为 1 到 4'),
  feature: z.enum(FEATURES, '未知的功能'),
  allowed: z.boolean('必须是 true 或 false'),
});
export type PermissionRow = z.infer<typeof PermissionRowSchema>;

/** PUT body: the rows to change (others stay as they are). Level 1 rows may be sent but never set to false. */
export const PermissionsUpdateSchema = z.object({
  items: z
    .array(PermissionRowSchema)
    .min(1, '至少修改一项')
    .max(200, '一次最多修改 200 项')
    .superRefine((items, ctx) => {
      const seen = new Set<string>();
      items.forEach((row, i) => {
        const key = `${row.level}:${row.feature}`;
        if (seen.has(key)) ctx.addIssue({ code: 'custom', path: [i], message: '同一级别的同一功能重复出现' });
        seen.add(key);
      });
    }),
});
export type PermissionsUpdate = z.infer<typeof PermissionsUpdateSchema>;

/** GET answer: every level x feature, plus the labels the screen needs. */
export interface PermissionsMatrix {
  levels: number[];
  features: string[];
  items: PermissionRow[];
}
