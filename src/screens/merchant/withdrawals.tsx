import { useEffect, useState } from 'react';
import type { ScreenProps } from '../../app/screen-registry';
import { loadMe } from '../../app/staff-features';
import { useMoneyAction } from '../../app/use-money-action';
import { useRequest } from '../../app/use-request';
import { formatFen } from '../../domain/money';
import type { Withdrawal, WithdrawalStatus } from '../../domain/wallet.schema';
import { withdrawalsApi } from '../../http/wallet-api';
import { Toast } from '../../ui';
import { ResourceList } from '../../ui/resource-list';
import { Sheet } from '../../ui/sheet';
import { MoneyActionDialog, type ActionTexts } from '../shared/money-action-dialog';
import { StaffPage } from '../shared/staff-page';
import { useResourceList } from '../shared/use-resource-list';
import {
  WithdrawalDetail,
  WithdrawalRow,
  WithdrawalsToolbar,
  type AdminAction,
} from './parts/withdrawal-detail';

const PAGE_SIZE = 20;

const DONE_TEXT: Record<AdminAction, string> = {
  approve: '已批准',
  reject: '已驳回，金额已解冻',
  pay: '已标记打款',
};

function textsFor(action: string | null, w: Withdrawal | null): ActionTexts | null {
  const amount = w ? formatFen(w.amount_fen) : '';
  const who = w?.account.name ?? '';
  if (action === 'approve')
    return {
      title: '批准提现',
      confirmTitle: '批准这笔提现？',
      confirmMessage: () => `${who} 申请提现 ${amount}。批准后请通过银行转账打款，再标记已打款。`,
      confirmLabel: '批准',
    };
  if (action === 'reject')
    return {
      title: '驳回提现',
      label: '驳回原因',
      placeholder: '例如：收款账户信息有误',
      confirmTitle: '驳回这笔提现？',
      confirmMessage: (v) => `${amount} 将解冻退回 ${who} 的可提现余额。原因：${v.trim()}`,
      confirmLabel: '驳回',
      danger: true,
    };
  if (action === 'pay')
    return {
      title: '标记已打款',
      label: '转账凭证号',
      placeholder: '银行流水号或转账单号',
      confirmTitle: '确认已打款？',
      confirmMessage: (v) => `确认已向 ${who} 转账 ${amount}，凭证号 ${v.trim()}。此操作不可撤销。`,
      confirmLabel: '确认已打款',
    };
  return null;
}

/** The admin's three actions: approve, reject with a reason, mark paid with a transfer reference. */
const ADMIN_ACTIONS: Parameters<typeof useMoneyAction>[0] = {
  validate: (action, value) =>
    action === 'approve' || value.trim() !== ''
      ? null
      : action === 'reject'
        ? '请填写驳回原因'
        : '请填写转账凭证号',
  send: ({ action, target, value }) =>
    action === 'approve'
      ? withdrawalsApi.approve(target ?? 0)
      : action === 'reject'
        ? withdrawalsApi.reject(target ?? 0, value.trim())
        : withdrawalsApi.pay(target ?? 0, value.trim()),
};

/** `/merchant/withdrawals`: a merchant's and its partners' requests (the admin: all), each with its timeline. */
export default function WithdrawalsScreen({ route }: ScreenProps) {
  const { filter, setFilter, list, listProps } = useResourceList(
    withdrawalsApi.list,
    { status: '' as WithdrawalStatus | '', merchant_id: undefined as number | undefined, page: 1 },
    PAGE_SIZE,
    (f) => ({
      page: f.page,
      page_size: f.page_size,
      status: f.status || undefined,
      merchant_id: f.merchant_id,
    }),
  );
  const me = useRequest(loadMe);
  const isAdmin = me.data?.user.level === 1;
  const [selected, setSelected] = useState<Withdrawal | null>(null);
  const [toast, setToast] = useState<{ message: string; kind: 'success' | 'error' } | null>(null);
  const money = useMoneyAction(ADMIN_ACTIONS);
  const { done, result, action } = money.view;
  useEffect(() => {
    if (!done) return;
    setToast({ message: DONE_TEXT[action as AdminAction] ?? '已完成', kind: 'success' });
    setSelected(result as Withdrawal);
    money.send({ type: 'close' });
    list.refresh();
  }, [done, result, action, money, list]);

  return (
    <StaffPage
      route={route}
      description={
        isAdmin
          ? '所有商户与合伙人的提现申请：审核、驳回、标记打款。'
          : '本商户及其合伙人的提现申请与处理进度。'
      }
    >
      <ResourceList
        {...listProps}
        keyOf={(w) => w.id}
        toolbar={
          <WithdrawalsToolbar
            filter={filter}
            isAdmin={isAdmin}
            onFilter={(f) => setFilter({ ...f, page: 1 })}
          />
        }
        emptyTitle="暂无提现申请"
        emptyDescription="商户或合伙人在“钱包”中申请提现后会显示在这里。"
        renderItem={(w) => <WithdrawalRow w={w} onOpen={() => setSelected(w)} />}
      />
      <Sheet
        open={selected !== null && !money.view.open}
        title={`提现 #${selected?.id ?? ''}`}
        onClose={() => setSelected(null)}
      >
        {selected && (
          <WithdrawalDetail
            w={selected}
            isAdmin={isAdmin}
            onAction={(a) =>
              money.send({ type: 'open', action: a, target: selected.id, needsInput: a !== 'approve' })
            }
          />
        )}
      </Sheet>
      <MoneyActionDialog money={money} texts={textsFor(money.view.action, selected)} />
      {toast && <Toast message={toast.message} kind={toast.kind} onClose={() => setToast(null)} />}
    </StaffPage>
  );
}
