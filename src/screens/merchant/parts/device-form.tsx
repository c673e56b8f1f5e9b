import { useCallback, useRef } from 'react';
import { useForm } from '../../../app/use-form';
import { idFromText } from '../../../domain/api';
import {
  DeviceCreateSchema,
  DeviceUpdateSchema,
  MAX_BATCH,
  type Device,
  type DeviceOptions,
  type DevicesCreated,
} from '../../../domain/devices.schema';
import { devicesApi } from '../../../http/devices-api';
import { FormField } from '../../../ui/form-field';
import { StaffForm, type Form } from '../../shared/form-parts';

function Select({
  form,
  field,
  label,
  items,
}: {
  form: Form;
  field: string;
  label: string;
  items: { id: number; name: string }[];
}) {
  return (
    <FormField label={label} error={form.view.errors[field]}>
      {(id) => (
        <select
          id={id}
          className="select w-full"
          value={String(form.view.values[field] ?? '')}
          onChange={(e) => form.change(field, e.target.value ? Number(e.target.value) : undefined)}
        >
          <option value="">请选择{label}</option>
          {items.map((o) => (
            <option key={o.id} value={o.id}>
              {o.name}
            </option>
          ))}
        </select>
      )}
    </FormField>
  );
}

function Text({
  form,
  field,
  label,
  hint,
  max,
}: {
  form: Form;
  field: string;
  label: string;
  hint?: string;
  max: number;
}) {
  return (
    <FormField label={label} error={form.view.errors[field]} hint={hint}>
      {(id) => (
        <input
          id={id}
          className="input w-full"
          value={String(form.view.values[field] ?? '')}
          maxLength={max}
          placeholder={`请输入${label}`}
          onChange={(e) =>
            form.change(field, e.target.value === '' && field === 'serial' ? undefined : e.target.value)
          }
        />
      )}
    </FormField>
  );
}

const activeProducts = (o: DeviceOptions, keep?: number) =>
  o.products.filter((p) => p.status === 'active' || p.id === keep);

/** Add one device, or a batch (`batch`): model, venue, and a name or a name prefix with a count. */
export function DeviceAddForm({
  options,
  batch,
  onDone,
}: {
  options: DeviceOptions;
  batch: boolean;
  onDone: (saved: boolean, created: Device[]) => void;
}) {
  const created = useRef<Device[]>([]);
  const first = { venue_id: options.venues[0]?.id, product_id: activeProducts(options)[0]?.id };
  const form = useForm({
    schema: DeviceCreateSchema,
    values: batch ? { ...first, count: 10, name_prefix: '', start: 1 } : { ...first, name: '' },
    submit: async (v) => {
      const r = await devicesApi.create(DeviceCreateSchema.parse(v));
      created.current = 'items' in r ? (r as DevicesCreated).items : [r as Device];
      return r;
    },
  });
  const done = useCallback((saved: boolean) => onDone(saved, created.current), [onDone]);
  const num = (field: string, label: string, hint?: string) => (
    <FormField label={label} error={form.view.errors[field]} hint={hint}>
      {(id) => (
        <input
          id={id}
          className="input w-full"
          inputMode="numeric"
          value={String(form.view.values[field] ?? '')}
          onChange={(e) => form.change(field, idFromText(e.target.value))}
        />
      )}
    </FormField>
  );
  return (
    <StaffForm form={form} onDone={done} submitLabel="确认添加">
      <Select form={form} field="venue_id" label="场地" items={options.venues} />
      <Select form={form} field="product_id" label="型号" items={activeProducts(options)} />
      {batch ? (
        <>
          <Text
            form={form}
            field="name_prefix"
            label="名称前缀"
            hint="如「广场充电桩 」，依次编号为 广场充电桩 1、2…"
            max={48}
          />
          <div className="grid grid-cols-2 gap-2">
            {num('count', '数量', `1–${MAX_BATCH} 台`)}
            {num('start', '起始编号')}
          </div>
          <p className="text-xs text-base-content/60">序列号由系统自动生成，保证不重复。</p>
        </>
      ) : (
        <>
          <Text form={form} field="name" label="设备名称" max={64} />
          <Text
            form={form}
            field="serial"
            label="序列号"
            hint="选填：设备上印的序列号；不填则自动生成"
            max={32}
          />
        </>
      )}
    </StaffForm>
  );
}

/** Rename a device or change its model. */
export function DeviceEditForm({
  device,
  options,
  onDone,
}: {
  device: Device;
  options: DeviceOptions;
  onDone: (saved: boolean) => void;
}) {
  const form = useForm({
    schema: DeviceUpdateSchema,
    values: { name: device.name, product_id: device.product_id },
    submit: (v) => devicesApi.update(device.id, DeviceUpdateSchema.parse(v)),
  });
  return (
    <StaffForm form={form} onDone={onDone}>
      <Text form={form} field="name" label="设备名称" max={64} />
      <Select
        form={form}
        field="product_id"
        label="型号"
        items={activeProducts(options, device.product_id)}
      />
      <p className="text-xs text-base-content/60">序列号 {device.serial}（不可修改）</p>
    </StaffForm>
  );
}

/** Move a device to another venue of its merchant: its pay link, and so its printed label, change. */
export function DeviceMoveForm({
  device,
  options,
  onDone,
}: {
  device: Device;
  options: DeviceOptions;
  onDone: (moved: Device | null) => void;
}) {
  const result = useRef<Device | null>(null);
  const form = useForm({
    schema: DeviceUpdateSchema,
    values: { venue_id: device.venue_id },
    submit: async (v) => {
      result.current = await devicesApi.update(device.id, DeviceUpdateSchema.parse(v));
      return result.current;
    },
  });
  const done = useCallback((saved: boolean) => onDone(saved ? result.current : null), [onDone]);
  const targets = options.venues.filter((v) => v.merchant_id === device.merchant_id);
  return (
    <StaffForm form={form} onDone={done} submitLabel="确认移动">
      <p className="alert alert-warning text-sm" role="note">
        移动后设备的付款二维码会改变：已贴的旧标签将失效（扫码会提示设备已移至其他场地）。移动完成后请打印新标签替换。
      </p>
      <p className="text-sm">
        当前场地：<span className="font-medium">{device.venue_name}</span>
      </p>
      <Select form={form} field="venue_id" label="新场地" items={targets} />
    </StaffForm>
  );
}
