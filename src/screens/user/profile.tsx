import { useSelector } from '@xstate/react';
import {
  selectCanRetryRecharge,
  selectLoadingPackages,
  selectNotice,
  selectPackages,
  selectProgress,
  selectRechargeDone,
  selectRechargeError,
  selectRechargeMerchant,
  selectSheetOpen,
} from '../../machines/user-recharge.selectors';
import { useEffect, useMemo } from 'react';
import { useLocation, useSearch } from 'wouter';
import type { ScreenProps } from '../../app/screen-registry';
import { UserPage } from '../../ui/user/user-page';
import { useRequest } from '../../app/use-request';
import { safeRedirect } from '../auth/wechat-login';
import { WECHAT_AUTH_REQUIRED, wechatLoginPath } from '../../http/client';
import { userApi } from '../../http/user-api';
import { EmptyState, ErrorState, Loading, Money, PageHeader } from '../../ui';
import { MenuList } from '../../ui/user/menu-list';
import { MemberCodeCard } from '../../ui/user/member-code-card';
import { useQrSvg } from './use-qr-svg';
import { RechargeSheet } from '../../ui/user/recharge-sheet';
import { useRechargeActor } from '../../app/user/use-recharge-actor';
import { cashierReturn, withoutCashierReturn } from '../../app/user/wechat-pay';

/** `/user/profile`: the member, balances per merchant (principal and bonus), recharge, and the end-user pages. */
export default function UserProfileScreen({ route }: ScreenProps) {
  const [, navigate] = useLocation();
  const init = useProfileAddress(navigate);
  const profile = useRequest(userApi.profile, init.merchantId ?? undefined);
  const qrSrc = useQrSvg(profile.data?.member.code);
  const recharge = useRechargeActor({
    returnPath: init.path,
    returned: init.returned,
    merchantId: init.returned ? null : init.merchantId,
    navigate,
    onRecharged: () => profile.refresh(),
  });
  const rechargeDone = useSelector(recharge, selectRechargeDone);
  const notice = useSelector(recharge, selectNotice);

  let body;
  if (profile.loading && !profile.data) body = <Loading />;
  else if (profile.error?.code === WECHAT_AUTH_REQUIRED)
    body = (
      <EmptyState icon="" title="请先登录" description="使用微信登录后查看余额与记录">
        <button
          type="button"
          className="btn btn-success mt-2"
          onClick={() => navigate(wechatLoginPath(init.path))}
        >
          微信登录
        </button>
      </EmptyState>
    );
  else if (profile.error) body = <ErrorState message={profile.error.message} onRetry={profile.retry} />;
  else if (profile.data) {
    const { member, wallets } = profile.data;
    body = (
      <>
        <MemberHeader member={member} />
        <MemberCodeCard code={member.code} qrSrc={qrSrc} />
        {init.back && rechargeDone && (
          <button
            type="button"
            className="btn btn-primary btn-block"
            onClick={() => navigate(safeRedirect(init.back))}
          >
            返回支付
          </button>
        )}
        <Wallets
          wallets={wallets}
          onRecharge={(merchant_id) => recharge.send({ type: 'recharge.open', merchant_id })}
        />
        <MenuList
          items={[
            { label: '使用中', icon: 'clock', onClick: () => navigate('/user/using') },
            { label: '充值记录', icon: 'card', onClick: () => navigate('/user/recharge-history') },
            { label: '消费记录', icon: 'receipt', onClick: () => navigate('/user/consumption-history') },
            { label: '意见反馈', icon: 'chat', onClick: () => navigate('/user/feedback') },
          ]}
        />
      </>
    );
  }

  return (
    <UserPage screen="user-profile">
      <PageHeader
        title={route.title}
        onBack={init.back ? () => navigate(safeRedirect(init.back)) : undefined}
      />
      <main className="space-y-4 px-4 pt-4 pb-10">
        {notice && (
          <div className={`alert ${rechargeDone ? 'alert-success' : 'alert-info'} text-sm`} role="status">
            {notice}
          </div>
        )}
        {body}
      </main>
      <ProfileRechargeSheet recharge={recharge} wallets={profile.data?.wallets ?? []} />
    </UserPage>
  );
}

/**
 * What the address says, read once per mount: back from the cashier (`order_no=` or `pay=cancel`), the merchant to
 * recharge at (`?recharge=`), where 返回 goes (`?back=`), and this page's own path without the cashier's additions.
 */
function useProfileAddress(navigate: (to: string, opts?: { replace?: boolean }) => void) {
  const search = useSearch();
  const init = useMemo(() => {
    const q = new URLSearchParams(search);
    const returned = cashierReturn(search);
    const merchant = Number(q.get('recharge'));
    return {
      returned,
      merchantId: merchant > 0 ? merchant : null,
      back: q.get('back'),
      path: `/user/profile${withoutCashierReturn(search)}`,
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- read once per mount
  }, []);
  // The cashier's additions are read once; drop them from the address after mounting so a reload does not replay
  // them (changing the URL during the first render would make React render again without them).
  useEffect(() => {
    if (init.returned) navigate(init.path, { replace: true });
  }, [init, navigate]);
  return init;
}

type Profile = Awaited<ReturnType<typeof userApi.profile>>;

/** The avatar (or the nickname's first character) and the nickname. */
function MemberHeader({ member }: { member: Profile['member'] }) {
  return (
    <section className="flex items-center gap-4 rounded-box bg-base-100 p-4">
      <div className="avatar avatar-placeholder">
        <div className="w-14 rounded-full bg-success text-success-content">
          {member.avatar_url ? (
            <img src={member.avatar_url} alt="" />
          ) : (
            <span className="text-xl">{member.nickname.slice(0, 1) || '微'}</span>
          )}
        </div>
      </div>
      <p className="text-lg font-semibold" data-testid="member-name">
        {member.nickname || '微信用户'}
      </p>
    </section>
  );
}

/** 我的余额: one card per merchant (balance, principal and bonus) with 充值. */
function Wallets({
  wallets,
  onRecharge,
}: {
  wallets: Profile['wallets'];
  onRecharge: (merchantId: number) => void;
}) {
  return (
    <section className="space-y-2">
      <h2 className="text-sm font-medium text-base-content/70">我的余额</h2>
      {wallets.length === 0 && <EmptyState icon="" title="暂无余额" description="在设备页面扫码后即可充值" />}
      {wallets.map((w) => (
        <div
          key={w.merchant_id}
          className="flex items-center justify-between rounded-box bg-base-100 p-4"
          data-testid={`wallet-${w.merchant_id}`}
        >
          <div>
            <p className="text-sm text-base-content/70">{w.merchant_name}</p>
            <Money fen={w.balance_fen} className="text-2xl font-semibold" />
            <p className="text-xs text-base-content/50">
              本金 <Money fen={w.principal_fen} /> · 赠送 <Money fen={w.bonus_fen} />
            </p>
          </div>
          <button type="button" className="btn btn-primary btn-sm" onClick={() => onRecharge(w.merchant_id)}>
            充值
          </button>
        </div>
      ))}
    </section>
  );
}

/** The recharge machine's sheet: the merchant's packages, progress, error and retry. */
function ProfileRechargeSheet({
  recharge,
  wallets,
}: {
  recharge: ReturnType<typeof useRechargeActor>;
  wallets: Profile['wallets'];
}) {
  const rechargeMerchant = useSelector(recharge, selectRechargeMerchant);
  const sheetOpen = useSelector(recharge, selectSheetOpen);
  const loadingPackages = useSelector(recharge, selectLoadingPackages);
  const progress = useSelector(recharge, selectProgress);
  const packages = useSelector(recharge, selectPackages);
  const rechargeError = useSelector(recharge, selectRechargeError);
  const canRetry = useSelector(recharge, selectCanRetryRecharge);
  const merchantName = wallets.find((w) => w.merchant_id === rechargeMerchant)?.merchant_name ?? '';
  return (
    <RechargeSheet
      open={sheetOpen}
      merchantName={merchantName}
      packages={packages}
      loading={loadingPackages}
      progress={progress}
      error={rechargeError?.message ?? null}
      onSelect={(package_id) => recharge.send({ type: 'package.select', package_id })}
      onRetry={canRetry ? () => recharge.send({ type: 'retry' }) : undefined}
      onClose={() => recharge.send({ type: 'recharge.close' })}
    />
  );
}
