/** Pieces of the remote start screen: the result line, the venue filter or the label scanner, the devices, the form. */
import type { ServicePrice } from '../../../domain/api';
import type { StaffSession, StartMode } from '../../../domain/device-control.schema';
import { formatFen } from '../../../domain/money';
import { FormField } from '../../../ui/form-field';
import { CodeScanner, canScanCodes } from './code-scanner';

export type Phase =
  | { at: 'idle' }
  | { at: 'starting' }
  | { at: 'done'; session: StaffSession }
  | { at: 'error'; message: string };

/** The device id a printed label's QR code carries (`.../user/pay?device_id=..&venue_id=..`). */
function deviceIdOfLabel(text: string): number | null {
  const m = /[?&]device_id=(\d{1,10})/.exec(text);
  return m ? Number(m[1]) : null;
}

/** What the last start did: started (for cash or free), or why not. */
export function StartResult({ phase }: { phase: Phase }) {
  return (
    <>
      {phase.at === 'done' && (
        <div role="status" className="alert alert-success text-sm" data-testid="start-result">
          已启动「{phase.session.device_name}」{phase.session.minutes} 分钟
          {phase.session.method === 'cash' ? `，现金 ${formatFen(phase.session.amount_fen)}` : '（免费服务）'}
        </div>
      )}
      {phase.at === 'error' && (
        <div role="alert" className="alert alert-error text-sm">
          {phase.message}
        </div>
      )}
    </>
  );
}

/** The venue filter, and 扫设备码 where the camera can read codes. */
export function VenuePicker(p: {
  venues: { id: number; name: string }[] | undefined;
  venueId: number | undefined;
  onVenue: (id: number | undefined) => void;
  onScan: () => void;
}) {
  return (
    <div className="flex gap-2">
      <select
        className="select flex-1"
        aria-label="场地"
        value={p.venueId ?? ''}
        onChange={(e) => p.onVenue(e.target.value ? Number(e.target.value) : undefined)}
      >
        <option value="">全部场地</option>
        {p.venues?.map((v) => (
          <option key={v.id} value={v.id}>
            {v.name}
          </option>
        ))}
      </select>
      {canScanCodes() && (
        <button type="button" className="btn btn-outline" onClick={p.onScan}>
          扫设备码
        </button>
      )}
    </div>
  );
}

/** The chosen device's services, 已收现金 or 免费服务 (with its reason), and 启动设备. */
export function StartForm(p: {
  deviceName: string;
  prices: ServicePrice[] | undefined;
  priceId: number | null;
  onPrice: (id: number) => void;
  mode: StartMode;
  onMode: (mode: StartMode) => void;
  reason: string;
  onReason: (reason: string) => void;
  ready: boolean;
  onStart: () => void;
}) {
  const { priceId, mode, reason } = p;
  return (
    <div className="space-y-3 rounded-box bg-base-100 p-4">
      <p className="text-sm font-medium">「{p.deviceName}」的服务</p>
      <div className="grid grid-cols-3 gap-2">
        {p.prices?.map((x) => (
          <button
            key={x.id}
            type="button"
            aria-pressed={priceId === x.id}
            className={`btn h-auto flex-col py-2 ${priceId === x.id ? 'btn-primary' : 'btn-outline'}`}
            onClick={() => p.onPrice(x.id)}
          >
            <span>{x.name}</span>
            <span className="text-xs font-normal">{formatFen(x.price_fen)}</span>
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
            onClick={() => p.onMode(m)}
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
              onChange={(e) => p.onReason(e.target.value)}
            />
          )}
        </FormField>
      )}
      <button type="button" className="btn btn-primary btn-block" disabled={!p.ready} onClick={p.onStart}>
        启动设备
      </button>
    </div>
  );
}

/** The idle, online devices to choose from, two a row. */
export function DeviceChoices(p: {
  devices: { id: number; name: string; venue_name: string }[];
  deviceId: number | null;
  onChoose: (id: number) => void;
}) {
  return (
    <div className="grid grid-cols-2 gap-2">
      {p.devices.map((d) => (
        <button
          key={d.id}
          type="button"
          aria-pressed={p.deviceId === d.id}
          className={`btn h-auto flex-col py-2 ${p.deviceId === d.id ? 'btn-primary' : 'btn-outline'}`}
          onClick={() => p.onChoose(d.id)}
        >
          <span>{d.name}</span>
          <span className="text-xs font-normal">{d.venue_name}</span>
        </button>
      ))}
    </div>
  );
}

/** The camera reading a device label (a device of this merchant, or an error), or the venue filter with 扫设备码. */
export function ScanOrPick(p: {
  scanning: boolean;
  onScanning: (on: boolean) => void;
  venues: { id: number; name: string }[] | undefined;
  venueId: number | undefined;
  onVenue: (id: number | undefined) => void;
  knownIds: number[];
  onDevice: (id: number) => void;
  onError: (message: string) => void;
}) {
  if (!p.scanning)
    return (
      <VenuePicker
        venues={p.venues}
        venueId={p.venueId}
        onVenue={p.onVenue}
        onScan={() => p.onScanning(true)}
      />
    );
  return (
    <CodeScanner
      onDetected={(text) => {
        p.onScanning(false);
        const id = deviceIdOfLabel(text);
        if (id !== null && p.knownIds.includes(id)) p.onDevice(id);
        else p.onError('不是本商户的设备标签，请重新扫描或从列表选择');
      }}
      onFailed={(message) => {
        p.onScanning(false);
        p.onError(message);
      }}
      onCancel={() => p.onScanning(false)}
    />
  );
}
