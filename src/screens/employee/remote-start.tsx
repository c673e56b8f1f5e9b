import { useEffect, useRef, useState } from 'react';
import type { ScreenProps } from '../../app/screen-registry';
import { useRequest } from '../../app/use-request';
import type { ServicePrice } from '../../domain/api';
import type { StaffSession, StartMode } from '../../domain/device-control.schema';
import { formatFen } from '../../domain/money';
import { employeeApi } from '../../http/employee-api';
import { toOutcome } from '../../http/outcome';
import { ConfirmDialog, EmptyState, Loading } from '../../ui';
import { FormField } from '../../ui/form-field';
import { StaffPage } from '../shared/staff-page';
import { CodeScanner, canScanCodes } from './parts/code-scanner';

type Phase =
  | { at: 'idle' }
  | { at: 'starting' }
  | { at: 'done'; session: StaffSession }
  | { at: 'error'; message: string };

/** The device id a printed label's QR code carries (`.../user/pay?device_id=..&venue_id=..`). */
function deviceIdOfLabel(text: string): number | null {
  const m = /[?&]device_id=(\d{1,10})/.exec(text);
  return m ? Number(m[1]) : null;
}

/** The venue's prices; none before a device is chosen (no request). */
const pricesOf = (venueId: number) =>
  venueId > 0 ? employeeApi.prices(venueId) : Promise.resolve({ items: [] as ServicePrice[] });

/** `/employee/remote-start`: pick an idle, online device and a price; start it for cash or as a free service. */
export default function RemoteStartScreen({ route }: ScreenProps) {
  const [venueId, setVenueId] = useState<number | undefined>(undefined);
  const board = useRequest(employeeApi.board, venueId);
  const [deviceId, setDeviceId] = useState<number | null>(null);
  const device = board.data?.items.find((d) => d.id === deviceId);
  const prices = useRequest(pricesOf, device?.venue_id ?? 0);
  const [priceId, setPriceId] = useState<number | null>(null);
  const [mode, setMode] = useState<StartMode>('cash');
  const [reason, setReason] = useState('');
  const [scanning, setScanning] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [phase, setPhase] = useState<Phase>({ at: 'idle' });
  const key = useRef<string | null>(null);
  const price = prices.data?.items.find((p) => p.id === priceId);
  const ready = device && price && (mode === 'cash' || reason.trim() !== '');
  useEffect(() => setPriceId(null), [deviceId]);

  const start = async () => {
    if (!device || !price) return;
    key.current ??= crypto.randomUUID?.() ?? `${Date.now()}-${Math.random()}`;
    setPhase({ at: 'starting' });
    const body = { price_id: price.id, mode, ...(mode === 'service' ? { reason: reason.trim() } : {}) };
    let out = await toOutcome(() => employeeApi.start(device.id, body, key.current!));
    // Still waiting for the device after the server's wait: ask again until it answered or its deadline passed.
    for (let i = 0; out.ok && out.value.status === 'starting' && i < 15; i++) {
      await new Promise((r) => setTimeout(r, 1000));
      const orderNo = out.value.order_no;
      out = await toOutcome(() => employeeApi.startStatus(orderNo));
    }
    setConfirming(false);
    if (out.ok && out.value.status === 'failed')
      setPhase({ at: 'error', message: out.value.failure_reason ?? '设备未能启动，未收费' });
    else if (out.ok) {
      key.current = null;
      setPhase({ at: 'done', session: out.value });
    } else {
      if (out.error.status !== 0) key.current = null;
      setPhase({ at: 'error', message: out.error.message });
    }
    board.refresh();
  };

  const available = board.data?.items.filter((d) => d.status === 'idle' && d.online) ?? [];
  return (
    <StaffPage route={route} description="为现场顾客远程启动设备并选择服务时长。">
      <div className="space-y-3 p-4">
        {phase.at === 'done' && (
          <div role="status" className="alert alert-success text-sm" data-testid="start-result">
            已启动「{phase.session.device_name}」{phase.session.minutes} 分钟
            {phase.session.method === 'cash'
              ? `，现金 ${formatFen(phase.session.amount_fen)}`
              : '（免费服务）'}
          </div>
        )}
        {phase.at === 'error' && (
          <div role="alert" className="alert alert-error text-sm">
            {phase.message}
          </div>
        )}
        {scanning ? (
          <CodeScanner
            onDetected={(text) => {
              setScanning(false);
              const id = deviceIdOfLabel(text);
              if (id !== null && board.data?.items.some((d) => d.id === id)) setDeviceId(id);
              else setPhase({ at: 'error', message: '不是本商户的设备标签，请重新扫描或从列表选择' });
            }}
            onFailed={(message) => {
              setScanning(false);
              setPhase({ at: 'error', message });
            }}
            onCancel={() => setScanning(false)}
          />
        ) : (
          <div className="flex gap-2">
            <select
              className="select flex-1"
              aria-label="场地"
              value={venueId ?? ''}
              onChange={(e) => setVenueId(e.target.value ? Number(e.target.value) : undefined)}
            >
              <option value="">全部场地</option>
              {board.data?.venues.map((v) => (
                <option key={v.id} value={v.id}>
                  {v.name}
                </option>
              ))}
            </select>
            {canScanCodes() && (
              <button type="button" className="btn btn-outline" onClick={() => setScanning(true)}>
                扫设备码
              </button>
            )}
          </div>
        )}
        {board.loading && !board.data && <Loading />}
        {board.data && available.length === 0 && <EmptyState title="暂无空闲在线的设备" />}
        <div className="grid grid-cols-2 gap-2">
          {available.map((d) => (
            <button
              key={d.id}
              type="button"
              aria-pressed={deviceId === d.id}
              className={`btn h-auto flex-col py-2 ${deviceId === d.id ? 'btn-primary' : 'btn-outline'}`}
              onClick={() => setDeviceId(d.id)}
            >
              <span>{d.name}</span>
              <span className="text-xs font-normal">{d.venue_name}</span>
            </button>
          ))}
        </div>
        {device && (
          <div className="space-y-3 rounded-box bg-base-100 p-4">
            <p className="text-sm font-medium">「{device.name}」的服务</p>
            <div className="grid grid-cols-3 gap-2">
              {prices.data?.items.map((p) => (
                <button
                  key={p.id}
                  type="button"
                  aria-pressed={priceId === p.id}
                  className={`btn h-auto flex-col py-2 ${priceId === p.id ? 'btn-primary' : 'btn-outline'}`}
                  onClick={() => setPriceId(p.id)}
                >
                  <span>{p.name}</span>
                  <span className="text-xs font-normal">{formatFen(p.price_fen)}</span>
                </button>
              ))}
            </div>
            <div className="join w-full">
              {(['cash', 'service'] as const).map((m) => (
                <button
                  key={m}
                  type="button"
                  aria-pressed={mode === m}
                  className={`btn join-item flex-1 ${mode === m ? 'btn-primary' : ''}`}
                  onClick={() => setMode(m)}
                >
                  {m === 'cash' ? '已收现金' : '免费服务'}
                </button>
              ))}
            </div>
            {mode === 'service' && (
              <FormField label="免费原因" error={reason.trim() ? undefined : '免费服务请填写原因'}>
                {(id) => (
                  <input
                    id={id}
                    className="input w-full"
                    maxLength={200}
                    placeholder="如：设备故障补偿"
                    value={reason}
                    onChange={(e) => setReason(e.target.value)}
                  />
                )}
              </FormField>
            )}
            <button
              type="button"
              className="btn btn-primary btn-block"
              disabled={!ready}
              onClick={() => setConfirming(true)}
            >
              启动设备
            </button>
          </div>
        )}
      </div>
      <ConfirmDialog
        open={confirming}
        busy={phase.at === 'starting'}
        title="确认启动"
        message={`启动「${device?.name ?? ''}」${price?.minutes ?? ''} 分钟，${mode === 'cash' ? `已收现金 ${formatFen(price?.price_fen ?? 0)}` : `免费服务：${reason.trim()}`}。设备未响应时不收费。`}
        confirmLabel={phase.at === 'starting' ? '等待设备响应…' : '启动'}
        onConfirm={() => void start()}
        onCancel={() => setConfirming(false)}
      />
    </StaffPage>
  );
}
