import { useEffect, useState } from 'react';
import type { DeviceCredentials, DeviceSecretIssued } from '../../../domain/device-secret.schema';
import { devicesApi } from '../../../http/devices-api';

type Ready = { kind: 'ready'; creds: DeviceCredentials; confirming: boolean; busy: boolean; error?: string };
type State =
  | { kind: 'loading' }
  | { kind: 'error'; message: string }
  | Ready
  | { kind: 'issued'; issued: DeviceSecretIssued; copied: boolean };

const messageOf = (err: unknown) => (err instanceof Error && err.message ? err.message : '网络异常，请重试');

function Row({ label, value }: { label: string; value: string }) {
  return (
    <div className="flex justify-between gap-2 text-sm">
      <span className="text-base-content/60">{label}</span>
      <span className="font-mono break-all text-right">{value}</span>
    </div>
  );
}

function secretText(creds: DeviceCredentials): string {
  if (!creds.has_secret) return creds.simulated ? '尚未设置（设备模拟器代管中）' : '尚未设置';
  return `已设置${creds.rotated_at ? `（${new Date(creds.rotated_at).toLocaleString('zh-CN')}）` : ''}`;
}

function ConfirmRotate({
  state,
  onCancel,
  onConfirm,
}: {
  state: Ready;
  onCancel: () => void;
  onConfirm: () => void;
}) {
  return (
    <div className="alert alert-warning mt-2 flex flex-col items-stretch text-sm" role="alertdialog">
      <p>
        生成后旧密钥立即失效，设备会断开，需填入新密钥才能重新连接。
        {state.creds.simulated && '设备模拟器将不再代管此设备。'}
        确定生成？
      </p>
      {state.error && <p className="text-error">{state.error}</p>}
      <div className="flex justify-end gap-2">
        <button type="button" className="btn btn-ghost btn-sm" disabled={state.busy} onClick={onCancel}>
          取消
        </button>
        <button type="button" className="btn btn-warning btn-sm" disabled={state.busy} onClick={onConfirm}>
          {state.busy ? '生成中…' : '确认生成'}
        </button>
      </div>
    </div>
  );
}

function Issued({
  issued,
  copied,
  onCopied,
}: {
  issued: DeviceSecretIssued;
  copied: boolean;
  onCopied: () => void;
}) {
  return (
    <div className="flex flex-col gap-2">
      <p className="text-sm text-warning-content">新密钥只显示这一次，请立即复制并填入设备：</p>
      <code className="block rounded bg-base-200 p-2 font-mono text-sm break-all" data-testid="device-secret">
        {issued.secret}
      </code>
      <Row label="用户名" value={issued.username} />
      <button
        type="button"
        className="btn btn-primary btn-sm"
        onClick={() => void navigator.clipboard?.writeText(issued.secret).then(onCopied, () => undefined)}
      >
        {copied ? '已复制' : '复制密钥'}
      </button>
    </div>
  );
}

/**
 * The device's MQTT credentials on its edit sheet (docs/device-protocol.md): username and broker, who holds the
 * secret, and 生成新密钥 (confirmed first, since the old secret stops working at once). The new secret is shown
 * this once and kept only in this component's memory: closing the sheet forgets it.
 */
export function DeviceSecretPanel({ deviceId }: { deviceId: number }) {
  const [state, setState] = useState<State>({ kind: 'loading' });
  const load = () => {
    setState({ kind: 'loading' });
    devicesApi.credentials(deviceId).then(
      (creds) => setState({ kind: 'ready', creds, confirming: false, busy: false }),
      (err: unknown) => setState({ kind: 'error', message: messageOf(err) }),
    );
  };
  useEffect(load, [deviceId]);

  const rotate = async (creds: DeviceCredentials) => {
    setState({ kind: 'ready', creds, confirming: true, busy: true });
    try {
      const issued = await devicesApi.rotateSecret(deviceId);
      setState({ kind: 'issued', issued, copied: false });
    } catch (err) {
      setState({ kind: 'ready', creds, confirming: true, busy: false, error: messageOf(err) });
    }
  };

  return (
    <section className="mt-4 rounded-box border border-base-300 p-3" aria-label="设备密钥">
      <h3 className="mb-2 font-medium">设备密钥（MQTT）</h3>
      {state.kind === 'loading' && <p className="text-sm text-base-content/60">加载中…</p>}
      {state.kind === 'error' && (
        <p className="text-sm text-error" role="alert">
          {state.message}{' '}
          <button type="button" className="link" onClick={load}>
            重试
          </button>
        </p>
      )}
      {state.kind === 'ready' && (
        <div className="flex flex-col gap-1">
          <Row label="用户名" value={state.creds.username} />
          {state.creds.broker_url && <Row label="服务器" value={state.creds.broker_url} />}
          <Row label="密钥" value={secretText(state.creds)} />
          {!state.confirming ? (
            <button
              type="button"
              className="btn btn-outline btn-sm mt-2"
              onClick={() => setState({ ...state, confirming: true })}
            >
              生成新密钥
            </button>
          ) : (
            <ConfirmRotate
              state={state}
              onCancel={() => setState({ ...state, confirming: false, error: undefined })}
              onConfirm={() => void rotate(state.creds)}
            />
          )}
        </div>
      )}
      {state.kind === 'issued' && (
        <Issued
          issued={state.issued}
          copied={state.copied}
          onCopied={() => setState({ ...state, copied: true })}
        />
      )}
    </section>
  );
}
