import { useEffect, useRef, useState } from 'react';
import type { ScreenProps } from '../../app/screen-registry';
import { useRequest } from '../../app/use-request';
import type { ServicePrice } from '../../domain/api';
import type { StartMode } from '../../domain/device-control.schema';
import { formatFen } from '../../domain/money';
import { employeeApi } from '../../http/employee-api';
import { toOutcome } from '../../http/outcome';
import { ConfirmDialog, EmptyState, Loading } from '../../ui';
import { StaffPage } from '../shared/staff-page';
import { DeviceChoices, ScanOrPick, StartForm, StartResult, type Phase } from './parts/remote-start-parts';

/** The venue's prices; none before a device is chosen (no request). */
const pricesOf = (venueId: number) =>
  venueId > 0 ? employeeApi.prices(venueId) : Promise.resolve({ items: [] as ServicePrice[] });

/**
 * Start the device and, while the server still waits for it after its own wait, ask again each second until it
 * answered or its deadline passed (15 s more at most).
 */
async function startAndWait(deviceId: number, body: Parameters<typeof employeeApi.start>[1], key: string) {
  let out = await toOutcome(() => employeeApi.start(deviceId, body, key));
  for (let i = 0; out.ok && out.value.status === 'starting' && i < 15; i++) {
    await new Promise((r) => setTimeout(r, 1000));
    const orderNo = out.value.order_no;
    out = await toOutcome(() => employeeApi.startStatus(orderNo));
  }
  return out;
}

/** The start's outcome as the screen shows it. */
function phaseAfter(out: Awaited<ReturnType<typeof startAndWait>>): Phase {
  if (!out.ok) return { at: 'error', message: out.error.message };
  if (out.value.status === 'failed')
    return { at: 'error', message: out.value.failure_reason ?? '设备未能启动，未收费' };
  return { at: 'done', session: out.value };
}

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
    const out = await startAndWait(device.id, body, key.current);
    setConfirming(false);
    // A start or a refusal ends this attempt; no answer (no network) or a failed start keeps its key.
    if (out.ok ? out.value.status !== 'failed' : out.error.status !== 0) key.current = null;
    setPhase(phaseAfter(out));
    board.refresh();
  };

  const available = board.data?.items.filter((d) => d.status === 'idle' && d.online) ?? [];
  return (
    <StaffPage route={route} description="为现场顾客远程启动设备并选择服务时长。">
      <div className="space-y-3 p-4">
        <StartResult phase={phase} />
        <ScanOrPick
          scanning={scanning}
          onScanning={setScanning}
          venues={board.data?.venues}
          venueId={venueId}
          onVenue={setVenueId}
          knownIds={board.data?.items.map((d) => d.id) ?? []}
          onDevice={setDeviceId}
          onError={(message) => setPhase({ at: 'error', message })}
        />
        {board.loading && !board.data && <Loading />}
        {board.data && available.length === 0 && <EmptyState title="暂无空闲在线的设备" />}
        <DeviceChoices devices={available} deviceId={deviceId} onChoose={setDeviceId} />
        {device && (
          <StartForm
            deviceName={device.name}
            prices={prices.data?.items}
            priceId={priceId}
            onPrice={setPriceId}
            mode={mode}
            onMode={setMode}
            reason={reason}
            onReason={setReason}
            ready={Boolean(ready)}
            onStart={() => setConfirming(true)}
          />
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
