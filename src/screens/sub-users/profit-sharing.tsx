import { useCallback, useState } from 'react';
import type { ScreenProps } from '../../app/screen-registry';
import { loadMe } from '../../app/staff-features';
import { useRequest } from '../../app/use-request';
import type { ShareRule } from '../../domain/profit-sharing.schema';
import { profitSharingApi } from '../../http/people-api';
import { Toast } from '../../ui';
import { ResourceList } from '../../ui/resource-list';
import { StaffPage } from '../shared/staff-page';
import { useEditing } from '../shared/use-editing';
import { useResourceList } from '../shared/use-resource-list';
import { RuleSheet, RulesToolbar } from './parts/share-rule-form';
import { RemoveRuleDialog, ShareHistory, ShareRuleRow } from './parts/share-rule-rows';

const PAGE_SIZE = 20;

/**
 * `/sub-users/profit-sharing`: rules of venue x partner x ratio, with the history of every change. The admin first
 * chooses the merchant whose venues and partners to edit (the lists show all merchants until then).
 */
export default function ProfitSharingScreen({ route }: ScreenProps) {
  const { filter, setFilter, list, listProps } = useResourceList(
    profitSharingApi.list,
    { page: 1, merchant_id: undefined as number | undefined },
    PAGE_SIZE,
  );
  const { merchant_id: merchantId } = filter;
  const me = useRequest(loadMe);
  const isAdmin = me.data?.user.level === 1;
  const [version, setVersion] = useState(0);
  const canAdd = me.data !== undefined && (!isAdmin || merchantId !== undefined);
  const [removing, setRemoving] = useState<ShareRule | null>(null);
  const [toast, setToast] = useState<{ message: string; kind: 'success' | 'error' } | null>(null);
  const refresh = useCallback(() => {
    list.refresh();
    setVersion((v) => v + 1);
  }, [list]);
  const saved = useCallback((message: string) => setToast({ message, kind: 'success' }), []);
  const { editing, setEditing, onFormDone } = useEditing<ShareRule>(
    '已保存，此后的支付按新比例分润',
    saved,
    refresh,
  );
  return (
    <StaffPage
      route={route}
      description="按场地为合伙人设置分润比例；同一场地合计不超过 100%，修改只影响此后的支付。"
    >
      <ResourceList
        {...listProps}
        keyOf={(r) => r.id}
        toolbar={
          <RulesToolbar
            isAdmin={isAdmin}
            merchantId={merchantId}
            canAdd={canAdd}
            onMerchant={(id) => setFilter({ page: 1, merchant_id: id })}
            onAdd={() => setEditing('new')}
          />
        }
        emptyTitle="暂无分润规则"
        emptyDescription="点击“新增规则”为合伙人设置分润。"
        renderItem={(r) => (
          <ShareRuleRow
            rule={r}
            showMerchant={isAdmin && merchantId === undefined}
            onEdit={() => setEditing(r)}
            onRemove={() => setRemoving(r)}
          />
        )}
      />
      <ShareHistory merchantId={merchantId} version={version} />
      <RuleSheet
        editing={editing}
        merchantId={merchantId}
        onClose={() => setEditing(null)}
        onDone={onFormDone}
      />
      <RemoveRuleDialog
        rule={removing}
        onCancel={() => setRemoving(null)}
        onDone={(t) => {
          setRemoving(null);
          setToast(t);
          refresh();
        }}
      />
      {toast && <Toast message={toast.message} kind={toast.kind} onClose={() => setToast(null)} />}
    </StaffPage>
  );
}
