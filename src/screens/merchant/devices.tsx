import { useCallback, useState } from 'react';
import type { ScreenProps } from '../../app/screen-registry';
import { loadMe } from '../../app/staff-features';
import { useRequest } from '../../app/use-request';
import type { Device } from '../../domain/devices.schema';
import { devicesApi } from '../../http/devices-api';
import { toOutcome } from '../../http/outcome';
import { ConfirmDialog, Toast } from '../../ui';
import { ResourceList } from '../../ui/resource-list';
import { Sheet } from '../../ui/sheet';
import { StaffPage } from '../shared/staff-page';
import { DeviceAddForm, DeviceEditForm, DeviceMoveForm } from './parts/device-form';
import { DeviceQrPanel, LabelSheet } from './parts/device-labels';
import { DeviceRow, type RowAction } from './parts/device-row';
import { DeviceToolbar, type Filter } from './parts/device-toolbar';

const PAGE_SIZE = 20;
type Open =
  | { kind: 'add'; batch: boolean }
  | { kind: 'edit' | 'move'; device: Device }
  | { kind: 'qr'; device: Device; moved: boolean }
  | null;

/** Every device of a venue, page by page (a label sheet for the whole venue). */
async function allOfVenue(venue_id: number): Promise<Device[]> {
  const out: Device[] = [];
  for (let page = 1; ; page++) {
    const p = await devicesApi.list({ venue_id: String(venue_id), page, page_size: 100 });
    out.push(...p.items);
    if (out.length >= p.total || p.items.length === 0) return out;
  }
}

/**
 * `/merchant/devices`: the devices with what runs now; add, edit, move, disable; QR codes and label sheets. The
 * admin sees every merchant's devices, filters them by merchant, and adds devices for the merchant chosen.
 */
export default function DevicesScreen({ route }: ScreenProps) {
  const [filter, setFilter] = useState<Filter>({
    q: '',
    merchant_id: undefined,
    venue_id: '',
    product_id: '',
    status: '',
    online: '',
    page: 1,
  });
  const me = useRequest(loadMe);
  const isAdmin = me.data?.user.level === 1;
  const list = useRequest(devicesApi.list, {
    merchant_id: filter.merchant_id === undefined ? undefined : String(filter.merchant_id),
    q: filter.q || undefined,
    venue_id: filter.venue_id || undefined,
    product_id: filter.product_id || undefined,
    status: filter.status || undefined,
    online: (filter.online || undefined) as 'true' | 'false' | undefined,
    page: filter.page,
    page_size: PAGE_SIZE,
  });
  const options = useRequest(devicesApi.options, filter.merchant_id);
  const [open, setOpen] = useState<Open>(null);
  const [selected, setSelected] = useState<Map<number, Device>>(new Map());
  const [labels, setLabels] = useState<{ devices: Device[]; title: string } | null>(null);
  const [toggling, setToggling] = useState<Device | null>(null);
  const [toast, setToast] = useState<{ message: string; kind: 'success' | 'error' } | null>(null);
  const set = (patch: Partial<Filter>) => setFilter({ ...filter, page: 1, ...patch });

  const saved = useCallback(
    (message: string) => {
      setOpen(null);
      setToast({ message, kind: 'success' });
      list.refresh();
    },
    [list],
  );
  const onAdded = useCallback(
    (ok: boolean, created: Device[]) => {
      if (!ok) return setOpen(null);
      saved(created.length > 1 ? `已添加 ${created.length} 台，已选中，可打印标签` : '已添加');
      setSelected(new Map(created.map((d) => [d.id, d])));
    },
    [saved],
  );
  const onEdited = useCallback((ok: boolean) => (ok ? saved('已保存') : setOpen(null)), [saved]);
  const onMoved = useCallback(
    (moved: Device | null) => {
      if (!moved) return setOpen(null);
      list.refresh();
      setOpen({ kind: 'qr', device: moved, moved: true });
    },
    [list],
  );

  function act(device: Device, a: RowAction) {
    if (a === 'toggle') setToggling(device);
    else if (a === 'qr') setOpen({ kind: 'qr', device, moved: false });
    else setOpen({ kind: a, device });
  }
  async function toggle() {
    if (!toggling) return;
    const off = toggling.status !== 'disabled';
    const out = await toOutcome(() =>
      devicesApi.update(toggling.id, { status: off ? 'disabled' : 'enabled' }),
    );
    setToggling(null);
    setToast(
      out.ok
        ? { message: off ? '已停用' : '已启用', kind: 'success' }
        : { message: out.error.message, kind: 'error' },
    );
    list.refresh();
  }
  async function printVenue() {
    const venue = options.data?.venues.find((v) => String(v.id) === filter.venue_id);
    const out = await toOutcome(() => allOfVenue(Number(filter.venue_id)));
    if (out.ok) setLabels({ devices: out.value, title: `${venue?.name ?? '场地'} 全部设备` });
    else setToast({ message: out.error.message, kind: 'error' });
  }

  const opts = options.data;
  const toolbar = (
    <DeviceToolbar
      filter={filter}
      set={set}
      isAdmin={isAdmin}
      options={options.loading ? undefined : opts}
      optionsError={options.error?.message}
      selected={selected.size}
      onAdd={(batch) => setOpen({ kind: 'add', batch })}
      onPrintSelected={() => setLabels({ devices: [...selected.values()], title: '所选设备' })}
      onClearSelected={() => setSelected(new Map())}
      onPrintVenue={() => void printVenue()}
    />
  );
  const sheetTitle = !open
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
  return (
    <StaffPage
      route={route}
      description="场地中的设备、在线状态与正在进行的使用；添加、移动、停用设备，打印二维码标签。"
    >
      <ResourceList
        items={list.data?.items}
        total={list.data?.total ?? 0}
        page={filter.page}
        pageSize={PAGE_SIZE}
        loading={list.loading}
        error={list.error}
        onRetry={list.canRetry ? list.retry : undefined}
        onPage={(page) => setFilter({ ...filter, page })}
        keyOf={(d) => d.id}
        toolbar={toolbar}
        emptyTitle="暂无设备"
        emptyDescription="点击“添加”或“批量添加”为场地添加设备。"
        renderItem={(d) => (
          <DeviceRow
            device={d}
            showMerchant={isAdmin}
            selected={selected.has(d.id)}
            onSelect={(on) => {
              const next = new Map(selected);
              if (on) next.set(d.id, d);
              else next.delete(d.id);
              setSelected(next);
            }}
            onAction={(a) => act(d, a)}
          />
        )}
      />
      <Sheet open={open !== null} title={sheetTitle} onClose={() => setOpen(null)}>
        {open?.kind === 'add' && opts && (
          <DeviceAddForm key={String(open.batch)} options={opts} batch={open.batch} onDone={onAdded} />
        )}
        {open?.kind === 'edit' && opts && (
          <DeviceEditForm device={open.device} options={opts} onDone={onEdited} />
        )}
        {open?.kind === 'move' && opts && (
          <DeviceMoveForm device={open.device} options={opts} onDone={onMoved} />
        )}
        {open?.kind === 'qr' && (
          <>
            <DeviceQrPanel
              device={open.device}
              moved={open.moved}
              onPrint={() => {
                setOpen(null);
                setLabels({ devices: [open.device], title: open.device.name });
              }}
            />
            <button type="button" className="btn btn-ghost btn-sm mt-3 w-full" onClick={() => setOpen(null)}>
              关闭
            </button>
          </>
        )}
      </Sheet>
      <ConfirmDialog
        open={toggling !== null}
        danger={toggling?.status !== 'disabled'}
        title={toggling?.status === 'disabled' ? '启用设备？' : '停用设备？'}
        message={
          toggling?.status === 'disabled'
            ? `${toggling.name} 启用后用户可以扫码付款使用。`
            : `${toggling?.name ?? ''} 停用后用户扫码将无法付款；正在进行的使用会正常结束。`
        }
        onConfirm={() => void toggle()}
        onCancel={() => setToggling(null)}
      />
      {labels && (
        <>
          <LabelSheet devices={labels.devices} title={labels.title} onClose={() => setLabels(null)} />
        </>
      )}
      {toast && <Toast message={toast.message} kind={toast.kind} onClose={() => setToast(null)} />}
    </StaffPage>
  );
}
