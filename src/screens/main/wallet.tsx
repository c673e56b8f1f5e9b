import { useEffect, useRef, useState } from 'react';
import { Link } from 'wouter';
import type { ScreenProps } from '../../app/screen-registry';
import { useMoneyAction } from '../../app/use-money-action';
import { useRequest } from '../../app/use-request';
import { formatFen, parseYuan } from '../../domain/money';
import { withdrawalAmountProblem } from '../../domain/wallet.schema';
import { walletApi } from '../../http/wallet-api';
import { EmptyState, Toast } from '../../ui';
import { ResourceList } from '../../ui/resource-list';
import { MoneyActionDialog, type ActionTexts } from '../shared/money-action-dialog';
import { StaffPage } from '../shared/staff-page';
import { useLast } from '../shared/use-last';
import { PartnerRules } from './parts/partner-rules';
import { EntryRow, OwnWithdrawalRow, WalletSummary } from './parts/wallet-parts';

const PAGE_SIZE = 10;

const TEXTS: ActionTexts = {
  title: '申请提现',
  label: '提现金额（元）',
  placeholder: '例如 100.00',
  inputMode: 'decimal',
  confirmTitle: '确认提现？',
  confirmMessage: (v) => `提现 ${formatFen(parseYuan(v) ?? 0)}，提交后该金额立即冻结，平台审核通过后打款。`,
  confirmLabel: '确认提现',
};

/** The platform admin has no wallet: it reviews the others' requests on 提现管理. */
function AdminNoWallet({ route }: Pick<ScreenProps, 'route'>) {
  return (
    <StaffPage route={route} description="钱包属于商户（结算钱包）和分润合伙人（分润钱包）。">
      <div className="m-4 rounded-box bg-base-100">
        <EmptyState title="平台管理员没有钱包" description="各商户和合伙人的提现申请在“提现管理”中审核。">
          <Link href="/merchant/withdrawals" className="btn btn-primary btn-sm">
            前往提现管理
          </Link>
        </EmptyState>
      </div>
    </StaffPage>
  );
}

/** `/wallet`: the merchant's settlement wallet or the partner's share wallet, and its withdrawal requests. */
export default function WalletScreen({ route }: ScreenProps) {
  const [page, setPage] = useState(1);
  const [ownPage, setOwnPage] = useState(1);
  const [openId, setOpenId] = useState<number | null>(null);
  const [toast, setToast] = useState<string | null>(null);
  const wallet = useRequest(walletApi.get, { page, page_size: PAGE_SIZE });
  const own = useRequest(walletApi.withdrawals, { page: ownPage, page_size: PAGE_SIZE });
  // Both reload after a withdrawal: the summary and the rows stay on screen meanwhile (`useLast`).
  const walletData = useLast(wallet.data);
  const ownData = useLast(own.data);
  // The machine reads `validate` once; the ref gives it the balance as it is now.
  const available = useRef(0);
  available.current = walletData?.withdrawable_fen ?? 0;
  const money = useMoneyAction({
    validate: (_action, value) => withdrawalAmountProblem(value, available.current),
    send: ({ value, key }) => walletApi.requestWithdrawal(parseYuan(value) ?? 0, key),
  });
  const { done } = money.view;
  useEffect(() => {
    if (!done) return;
    setToast('提现申请已提交，金额已冻结');
    money.send({ type: 'close' });
    wallet.refresh();
    own.refresh();
  }, [done, money, wallet, own]);

  if (wallet.error?.code === 'NO_WALLET') return <AdminNoWallet route={route} />;
  return (
    <StaffPage route={route} description="可提现余额、冻结中的提现和每一笔收支明细。">
      {walletData && (
        <WalletSummary
          wallet={walletData}
          onWithdraw={() => money.send({ type: 'open', action: 'withdraw', needsInput: true })}
        />
      )}
      {walletData?.kind === 'partner' && <PartnerRules />}
      <h2 className="mx-4 mt-2 text-sm font-medium text-base-content/70">提现申请</h2>
      <ResourceList
        items={ownData?.items}
        total={ownData?.total ?? 0}
        page={ownPage}
        pageSize={PAGE_SIZE}
        loading={own.loading}
        error={own.error}
        onRetry={own.canRetry ? own.retry : undefined}
        onPage={setOwnPage}
        keyOf={(w) => w.id}
        emptyTitle="还没有提现申请"
        renderItem={(w) => (
          <OwnWithdrawalRow
            withdrawal={w}
            open={openId === w.id}
            onToggle={() => setOpenId(openId === w.id ? null : w.id)}
          />
        )}
      />
      <h2 className="mx-4 mt-2 text-sm font-medium text-base-content/70">收支明细</h2>
      <ResourceList
        items={walletData?.entries}
        total={walletData?.total ?? 0}
        page={page}
        pageSize={PAGE_SIZE}
        loading={wallet.loading}
        error={wallet.error}
        onRetry={wallet.canRetry ? wallet.retry : undefined}
        onPage={setPage}
        keyOf={(e) => e.id}
        emptyTitle="暂无收支"
        emptyDescription="会员消费分账到账后会显示在这里。"
        renderItem={(e) => <EntryRow entry={e} />}
      />
      <MoneyActionDialog money={money} texts={TEXTS} />
      <Toast message={toast} kind="success" onClose={() => setToast(null)} />
    </StaffPage>
  );
}
