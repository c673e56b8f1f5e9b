import { useCallback, useState, type ReactNode } from 'react';
import type { ScreenProps } from '../../app/screen-registry';
import { loadMe } from '../../app/staff-features';
import { useRequest } from '../../app/use-request';
import type { Device } from '../../domain/devices.schema';
import { devicesApi } from '../../http/devices-api';
import { toOutcome } from '../../http/outcome';
import { Toast } from '../../ui';
import { ResourceList, type ResourceListProps } from '../../ui/resource-list';
import { StaffPage } from '../shared/staff-page';
import { useResourceList } from '../shared/use-resource-list';
import { LabelSheet } from './parts/device-labels';
import { DeviceSheet, ToggleConfirm, type Open } from './parts/device-sheet';
import { DeviceRow, type RowAction } from './parts/device-row';
import { DeviceToolbar, type Filter } from './parts/device-toolbar';

const PAGE_SIZE = 20;
type Notice = { message: string; kind: 'success' | 'error' };

/** Every device of a venue, page by page (a label sheet for the whole venue). */
async function allOfVenue(venue_id: number): Promise<Device[]> {
  const out: Device[] = [];
  for (let page = 1; ; page++) {
    const p = await devicesApi.list({ venue_id: String(venue_id), page, page_size: 100 });
    out.push(...p.items);
    if (out.length >= p.total || p.items.length === 0) return out;
  }
}

const NO_FILTER: Filter = {
  q: '',
  merchant_id: undefined,
  venue_id: '',
  product_id: '',
  status: '',
  online: '',
  page: 1,
};

/** The list's query: empty filters left out. */
const toQuery = (f: Filter & { page_size: number }) => ({
  merchant_id: f.merchant_id === undefined ? undefined : String(f.merchant_id),
  q: f.q || undefined,
  venue_id: f.venue_id || undefined,
  product_id: f.product_id || undefined,
  status: f.status || undefined,
  online: (f.online || undefined) as 'true' | 'false' | undefined,
  page: f.page,
  page_size: f.page_size,
});

/**
 * `/merchant/devices`: the devices with what runs now; add, edit, move, disable; QR codes and label sheets. The
 * admin sees every merchant's devices, filters them by merchant, and adds devices for the merchant chosen.
 */
export default function DevicesScreen({ route }: ScreenProps) {
  const { filter, refilter, list, listProps } = useResourceList(
    devicesApi.list,
    NO_FILTER,
    PAGE_SIZE,
    toQuery,
    true,
  );
  const isAdmin = useRequest(loadMe).data?.user.level === 1;
  const options = useRequest(devicesApi.options, filter.merchant_id);
  const [open, setOpen] = useState<Open>(null);
  const { selected, setSelected, select, selectOnly } = useSelection();
  const [labels, setLabels] = useState<{ devices: Device[]; title: string } | null>(null);
  const [toggling, setToggling] = useState<Device | null>(null);
  const [toast, setToast] = useState<Notice | null>(null);
  /** Say how a change went, and reload. */
  const notify = useCallback(
    (notice: Notice) => {
      setToast(notice);
      list.refresh();
    },
    [list],
  );
  const act = (device: Device, a: RowAction) =>
    a === 'toggle'
      ? setToggling(device)
      : setOpen(a === 'qr' ? { kind: 'qr', device, moved: false } : { kind: a, device });
  const toolbar = (
    <DeviceToolbar
      filter={filter}
      set={refilter}
      isAdmin={isAdmin}
      options={options.loading ? undefined : options.data}
      optionsError={options.error?.message}
      selected={selected.size}
      onAdd={(batch) => setOpen({ kind: 'add', batch })}
      onPrintSelected={() => setLabels({ devices: [...selected.values()], title: '所选设备' })}
      onClearSelected={() => setSelected(new Map())}
      onPrintVenue={() =>
        void printVenue(filter.venue_id, options.data?.venues ?? []).then((r) =>
          'devices' in r ? setLabels(r) : setToast(r),
        )
      }
    />
  );
  return (
    <StaffPage
      route={route}
      description="场地中的设备、在线状态与正在进行的使用；添加、移动、停用设备，打印二维码标签。"
    >
      <DeviceList
        listProps={listProps}
        toolbar={toolbar}
        isAdmin={isAdmin}
        selected={selected}
        onSelect={select}
        onAction={act}
      />
      <DeviceSheet
        open={open}
        options={options.data}
        onOpen={setOpen}
        onSaved={(message) => notify({ message, kind: 'success' })}
        onAdded={selectOnly}
        onMoved={list.refresh}
        onPrint={(device) => setLabels({ devices: [device], title: device.name })}
      />
      <ToggleConfirm
        device={toggling}
        onDone={(notice) => {
          setToggling(null);
          notify(notice);
        }}
        onCancel={() => setToggling(null)}
      />
      {labels && <LabelSheet devices={labels.devices} title={labels.title} onClose={() => setLabels(null)} />}
      {toast && <Toast message={toast.message} kind={toast.kind} onClose={() => setToast(null)} />}
    </StaffPage>
  );
}

/** The list: each row with its selection box and actions. */
function DeviceList(p: {
  listProps: Omit<ResourceListProps<Device>, 'keyOf' | 'renderItem'>;
  toolbar: ReactNode;
  isAdmin: boolean;
  selected: Map<number, Device>;
  onSelect: (device: Device, on: boolean) => void;
  onAction: (device: Device, action: RowAction) => void;
}) {
  return (
    <ResourceList
      {...p.listProps}
      keyOf={(d) => d.id}
      toolbar={p.toolbar}
      emptyTitle="暂无设备"
      emptyDescription="点击“添加”或“批量添加”为场地添加设备。"
      renderItem={(d) => (
        <DeviceRow
          device={d}
          showMerchant={p.isAdmin}
          selected={p.selected.has(d.id)}
          onSelect={(on) => p.onSelect(d, on)}
          onAction={(a) => p.onAction(d, a)}
        />
      )}
    />
  );
}

/** The devices chosen for printing, by id. */
function useSelection() {
  const [selected, setSelected] = useState<Map<number, Device>>(new Map());
  const select = (d: Device, on: boolean) => {
    const next = new Map(selected);
    if (on) next.set(d.id, d);
    else next.delete(d.id);
    setSelected(next);
  };
  /** Just these (the devices just added, ready to print). */
  const selectOnly = useCallback(
    (devices: Device[]) => setSelected(new Map(devices.map((d) => [d.id, d]))),
    [],
  );
  return { selected, setSelected, select, selectOnly };
}

/** The label sheet of a whole venue, or the toast saying why it could not be loaded. */
async function printVenue(
  venueId: string,
  venues: { id: number; name: string }[],
): Promise<{ devices: Device[]; title: string } | Notice> {
  const venue = venues.find((v) => String(v.id) === venueId);
  const out = await toOutcome(() => allOfVenue(Number(venueId)));
  return out.ok
    ? { devices: out.value, title: `${venue?.name ?? '场地'} 全部设备` }
    : { message: out.error.message, kind: 'error' };
}
