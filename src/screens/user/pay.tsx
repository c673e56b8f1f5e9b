import { useSelector } from '@xstate/react';
import { useLocation, useSearch } from 'wouter';
import type { ScreenProps } from '../../app/screen-registry';
import { UserPage } from '../../ui/user/user-page';
import { formatFen } from '../../domain/money';
import * as sel from '../../machines/pay.selectors';
import { ConfirmDialog, Money, PageHeader } from '../../ui';
import { PAY_NOTICE, PAY_NOTICE_CLASS, PAY_SHELL_BODY } from '../../ui/user/pay-shell';
import { ActionPanel } from '../../ui/user/action-panel';
import { DeviceCard } from '../../ui/user/device-card';
import { PriceCards } from '../../ui/user/price-cards';
import { usePayActor } from '../../app/user/use-pay-actor';

/** `/user/pay`: the device behind the QR code, its prices, the wallet, and the two ways to pay. */
export default function PayScreen({ route }: ScreenProps) {
  const [, navigate] = useLocation();
  const actor = usePayActor(useSearch(), navigate);
  const s = useSelector(actor, (x) => x);
  const view = sel.selectView(s);
  const data = sel.selectData(s);
  const price = sel.selectSelectedPrice(s);
  const failure = sel.selectFailure(s);
  const closed = sel.selectMerchantClosed(s);
  const header = (
    <PageHeader
      title={route.title}
      action={
        <button type="button" className="btn btn-ghost btn-sm" onClick={() => navigate('/user/profile')}>
          我的
        </button>
      }
    />
  );

  if (!data) {
    return (
      <UserPage screen="user-pay">
        {header}
        {failure ? (
          <main className="px-4 pt-4">
            <ActionPanel
              title="无法打开设备"
              message={failure.message}
              actions={sel.selectForwardActions(s).map((a) => ({ ...a, onClick: () => actor.send(a.event) }))}
            />
          </main>
        ) : (
          // The frame index.html painted before the bundle arrived: nothing moves when React takes over.
          <div dangerouslySetInnerHTML={{ __html: PAY_SHELL_BODY }} />
        )}
      </UserPage>
    );
  }

  return (
    <UserPage screen="user-pay">
      {header}
      <main className="space-y-4 px-4 pt-4 pb-10" data-view={view}>
        <DeviceCard device={data.device} venue={data.venue} />
        <PayStatus s={s} send={actor.send} />

        <section>
          <h2 className="mb-2 text-sm font-medium text-base-content/70">选择套餐</h2>
          <PriceCards
            prices={data.prices}
            selectedId={price?.id ?? null}
            disabled={sel.selectIsBusy(s) || closed}
            onSelect={(price_id) => actor.send({ type: 'price.select', price_id })}
          />
        </section>

        <WalletSection s={s} send={actor.send} />

        {!closed && view !== 'failed' && !sel.selectIsBusy(s) && <PayButtons s={s} send={actor.send} />}
        <p className={PAY_NOTICE_CLASS} data-testid="pay-notice">
          {PAY_NOTICE}
        </p>
      </main>
      <ConfirmDialog
        open={view === 'confirming'}
        title="确认支付"
        message={sel.selectConfirmText(s)}
        confirmLabel="确认付款"
        onConfirm={() => actor.send({ type: 'pay.confirm' })}
        onCancel={() => actor.send({ type: 'pay.cancel' })}
      />
    </UserPage>
  );
}

type Send = ReturnType<typeof usePayActor>['send'];

/** Why the page cannot pay now (merchant closed, device busy or offline), a notice, a failure, or the progress. */
function PayStatus({ s, send }: { s: sel.PaySnapshot; send: Send }) {
  const failure = sel.selectFailure(s);
  const progress = sel.selectProgressText(s);
  const deviceProblem = sel.selectDeviceProblem(s);
  return (
    <>
      {sel.selectMerchantClosed(s) ? (
        <div className="alert alert-error text-sm" role="alert" data-testid="merchant-closed">
          {sel.MERCHANT_CLOSED}。正在使用的设备不受影响。
        </div>
      ) : (
        deviceProblem && <div className="alert alert-error text-sm">{deviceProblem}</div>
      )}
      {s.context.notice && <div className="alert alert-info text-sm">{s.context.notice}</div>}

      {failure && (
        <ActionPanel
          title="支付未完成"
          message={failure.message}
          actions={sel.selectForwardActions(s).map((a) => ({ ...a, onClick: () => send(a.event) }))}
        />
      )}
      {progress && (
        <section className="flex items-center gap-3 rounded-box bg-base-100 p-4" role="status">
          <span className="loading loading-spinner text-primary" aria-hidden="true" />
          <span data-testid="pay-progress">{progress}</span>
        </section>
      )}
    </>
  );
}

/** The balance at this merchant with 充值, or 微信登录 before signing in. */
function WalletSection({ s, send }: { s: sel.PaySnapshot; send: Send }) {
  return (
    <section className="flex items-center justify-between rounded-box bg-base-100 p-4">
      {sel.selectIsSignedIn(s) ? (
        <>
          <div>
            <p className="text-xs text-base-content/60">账户余额（{s.context.data?.venue.merchant.name}）</p>
            <Money fen={sel.selectBalance(s)} className="text-xl font-semibold" />
          </div>
          {!sel.selectMerchantClosed(s) && (
            <button
              type="button"
              className="btn btn-outline btn-sm"
              onClick={() => send({ type: 'recharge.open' })}
            >
              充值
            </button>
          )}
        </>
      ) : (
        <>
          <p className="text-sm text-base-content/70">登录后可使用余额支付与查看记录</p>
          <button
            type="button"
            className="btn btn-success btn-sm"
            onClick={() => send({ type: 'signin.start' })}
          >
            微信登录
          </button>
        </>
      )}
    </section>
  );
}

/** 余额支付 (with why it cannot, and how much is missing) and 微信支付. */
function PayButtons({ s, send }: { s: sel.PaySnapshot; send: Send }) {
  const signedIn = sel.selectIsSignedIn(s);
  const walletPay = sel.selectWalletPay(s);
  const price = sel.selectSelectedPrice(s);
  return (
    <section className="space-y-2">
      <button
        type="button"
        className="btn btn-primary btn-block"
        disabled={signedIn && !walletPay.enabled}
        onClick={() => send({ type: 'pay.submit', method: 'wallet' })}
      >
        余额支付{price ? ` ${formatFen(price.price_fen)}` : ''}
      </button>
      {walletPay.reason && (
        <p className="text-center text-xs text-error" data-testid="wallet-reason">
          {walletPay.reason}
          {walletPay.shortBy > 0 && `，还差 ${formatFen(walletPay.shortBy)}，请先充值或使用微信支付`}
        </p>
      )}
      <button
        type="button"
        className="btn btn-success btn-block"
        disabled={signedIn && !sel.selectWechatPay(s).enabled}
        onClick={() => send({ type: 'pay.submit', method: 'wechat' })}
      >
        微信支付
      </button>
    </section>
  );
}
