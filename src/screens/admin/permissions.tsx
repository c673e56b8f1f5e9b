import { useState } from 'react';
import type { ScreenProps } from '../../app/screen-registry';
import { forgetMe } from '../../app/staff-features';
import { useRequest } from '../../app/use-request';
import { ROLE_LABELS, roleOfLevel } from '../../domain/levels';
import type { PermissionRow } from '../../domain/permissions.schema';
import { GROUP_LABELS, ROUTES, type RouteDef } from '../../domain/routes';
import { isThrownRequestError } from '../../domain/outcome';
import { staffApi } from '../../http/staff-api';
import { Loading, ErrorState, Toast } from '../../ui';
import { StaffPage } from '../shared/staff-page';

const EDITABLE_LEVELS = [2, 3, 4];
const SHORT_LABELS: Record<number, string> = { 2: '商户', 3: '合伙人', 4: '员工' };
const key = (level: number, feature: string) => `${level}:${feature}`;
/** The screen each feature opens (its title and group), from the route table. */
const featureRoute = (feature: string): RouteDef | undefined => ROUTES.find((r) => r.feature === feature);

/** Level x feature matrix (docs/decisions.md D4): level 1 keeps everything; levels 2-4 are switched per feature. */
export default function PermissionsScreen({ route }: ScreenProps) {
  const matrix = useRequest(staffApi.permissions);
  const [changes, setChanges] = useState<Map<string, PermissionRow>>(new Map());
  const [saving, setSaving] = useState(false);
  const [toast, setToast] = useState<{ text: string; kind: 'success' | 'error' } | null>(null);

  const data = matrix.data;
  const allowed = (level: number, feature: string) =>
    changes.get(key(level, feature))?.allowed ??
    data?.items.find((i) => i.level === level && i.feature === feature)?.allowed ??
    false;

  function toggle(level: number, feature: PermissionRow['feature']) {
    const next = new Map(changes);
    next.set(key(level, feature), { level, feature, allowed: !allowed(level, feature) });
    setChanges(next);
  }

  async function save() {
    setSaving(true);
    try {
      await staffApi.savePermissions({ items: [...changes.values()] });
      setChanges(new Map());
      forgetMe();
      matrix.refresh();
      setToast({ text: '权限已保存', kind: 'success' });
    } catch (err) {
      setToast({ text: isThrownRequestError(err) ? err.message : '保存失败', kind: 'error' });
    } finally {
      setSaving(false);
    }
  }

  const groups = Object.entries(GROUP_LABELS)
    .map(([group, label]) => ({
      label,
      features: (data?.features ?? []).filter((f) => (featureRoute(f)?.group ?? 'main') === group),
    }))
    .filter((g) => g.features.length > 0);

  return (
    <StaffPage route={route} description="按账号级别设置可使用的功能；平台管理员始终拥有全部功能。">
      {matrix.loading && <Loading />}
      {matrix.error && (
        <ErrorState message={matrix.error.message} onRetry={matrix.canRetry ? matrix.retry : undefined} />
      )}
      {data && (
        <div className="px-4 pb-24">
          {groups.map((g) => (
            <section key={g.label} className="mt-4 rounded-box bg-base-100 p-3" aria-label={g.label}>
              <div className="grid grid-cols-[1fr_repeat(3,3.5rem)] items-center gap-y-2 text-sm">
                <h2 className="font-semibold text-base-content/70">{g.label}</h2>
                {EDITABLE_LEVELS.map((l) => (
                  <span key={l} className="text-center text-xs text-base-content/60">
                    {SHORT_LABELS[l]}
                  </span>
                ))}
                {g.features.map((f) => (
                  <Row key={f} feature={f} allowed={allowed} onToggle={toggle} />
                ))}
              </div>
            </section>
          ))}
          {changes.size > 0 && (
            <button
              type="button"
              className="btn btn-primary fixed inset-x-4 bottom-[calc(5rem+env(safe-area-inset-bottom))] z-10 mx-auto max-w-md shadow-md"
              disabled={saving}
              onClick={() => void save()}
            >
              {saving ? '保存中…' : `保存（${changes.size} 项修改）`}
            </button>
          )}
        </div>
      )}
      <Toast message={toast?.text ?? null} kind={toast?.kind} onClose={() => setToast(null)} />
    </StaffPage>
  );
}

function Row(props: {
  feature: string;
  allowed: (level: number, feature: string) => boolean;
  onToggle: (level: number, feature: PermissionRow['feature']) => void;
}) {
  const title = featureRoute(props.feature)?.title ?? props.feature;
  return (
    <>
      <span>{title}</span>
      {EDITABLE_LEVELS.map((level) => (
        <label key={level} className="flex justify-center">
          <input
            type="checkbox"
            className="size-5 accent-primary"
            aria-label={`${ROLE_LABELS[roleOfLevel(level) ?? 'merchant']} · ${title}`}
            checked={props.allowed(level, props.feature)}
            onChange={() => props.onToggle(level, props.feature as PermissionRow['feature'])}
          />
        </label>
      ))}
    </>
  );
}
