import { useCallback } from 'react';
import type { Device, DeviceOptions } from '../../../domain/devices.schema';
import { devicesApi } from '../../../http/devices-api';
import { toOutcome } from '../../../http/outcome';
import { ConfirmDialog } from '../../../ui';
import { Sheet } from '../../../ui/sheet';
import { DeviceAddForm, DeviceEditForm, DeviceMoveForm } from './device-form';
import { DeviceQrPanel } from './device-labels';
import { DeviceSecretPanel } from './device-secret';

/** What the device sheet shows: add (one or a batch), edit, move, or a device's QR code (after a move: the new one). */
export type Open =
  | { kind: 'add'; batch: boolean }
  | { kind: 'edit' | 'move'; device: Device }
  | { kind: 'qr'; device: Device; moved: boolean }
  | null;

type Notice = { message: string; kind: 'success' | 'error' };

const sheetTitle = (open: Open) =>
  !open
    ? ''
    : open.kind === 'add'
      ? open.batch
        ? '批量添加设备'
        : '添加设备'
      : open.kind === 'edit'
        ? '编辑设备'
        : open.kind === 'move'
          ? '移动到其他场地'
          : '设备二维码';

/**
 * The sheet of one device action: add (one or a batch; the new ones are selected for printing), edit, move (then
 * the new QR code), or the QR code with 打印标签.
 */
export function DeviceSheet({
  open,
  options: opts,
  onOpen,
  onSaved,
  onAdded,
  onMoved,
  onPrint,
}: {
  open: Open;
  options: DeviceOptions | undefined;
  onOpen: (open: Open) => void;
  onSaved: (message: string) => void;
  onAdded: (created: Device[]) => void;
  onMoved: () => void;
  onPrint: (device: Device) => void;
}) {
  const added = useCallback(
    (ok: boolean, created: Device[]) => {
      onOpen(null);
      if (!ok) return;
      onSaved(created.length > 1 ? `已添加 ${created.length} 台，已选中，可打印标签` : '已添加');
      onAdded(created);
    },
    [onOpen, onSaved, onAdded],
  );
  const edited = useCallback(
    (ok: boolean) => {
      onOpen(null);
      if (ok) onSaved('已保存');
    },
    [onOpen, onSaved],
  );
  const moved = useCallback(
    (device: Device | null) => {
      if (!device) return onOpen(null);
      onMoved();
      onOpen({ kind: 'qr', device, moved: true });
    },
    [onOpen, onMoved],
  );
  return (
    <Sheet open={open !== null} title={sheetTitle(open)} onClose={() => onOpen(null)}>
      {open?.kind === 'add' && opts && (
        <DeviceAddForm key={String(open.batch)} options={opts} batch={open.batch} onDone={added} />
      )}
      {open?.kind === 'edit' && opts && (
        <>
          <DeviceEditForm device={open.device} options={opts} onDone={edited} />
          <DeviceSecretPanel deviceId={open.device.id} />
        </>
      )}
      {open?.kind === 'move' && opts && <DeviceMoveForm device={open.device} options={opts} onDone={moved} />}
      {open?.kind === 'qr' && (
        <>
          <DeviceQrPanel
            device={open.device}
            moved={open.moved}
            onPrint={() => {
              onOpen(null);
              onPrint(open.device);
            }}
          />
          <button type="button" className="btn btn-ghost btn-sm mt-3 w-full" onClick={() => onOpen(null)}>
            关闭
          </button>
        </>
      )}
    </Sheet>
  );
}

/** 停用 or 启用 a device after a confirmation; `onDone` with the toast to show. */
export function ToggleConfirm({
  device,
  onDone,
  onCancel,
}: {
  device: Device | null;
  onDone: (notice: Notice) => void;
  onCancel: () => void;
}) {
  async function toggle() {
    if (!device) return;
    const off = device.status !== 'disabled';
    const out = await toOutcome(() => devicesApi.update(device.id, { status: off ? 'disabled' : 'enabled' }));
    onDone(
      out.ok
        ? { message: off ? '已停用' : '已启用', kind: 'success' }
        : { message: out.error.message, kind: 'error' },
    );
  }
  return (
    <ConfirmDialog
      open={device !== null}
      danger={device?.status !== 'disabled'}
      title={device?.status === 'disabled' ? '启用设备？' : '停用设备？'}
      message={
        device?.status === 'disabled'
          ? `${device.name} 启用后用户可以扫码付款使用。`
          : `${device?.name ?? ''} 停用后用户扫码将无法付款；正在进行的使用会正常结束。`
      }
      onConfirm={() => void toggle()}
      onCancel={onCancel}
    />
  );
}
