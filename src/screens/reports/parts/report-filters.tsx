/**
 * The filters of a report screen: date presets (今天, 昨天, 近 7 天, 近 30 天, 本月, 自定义) or, on the daily
 * screens, one day with 前一天/后一天; the venue filter; the merchant filter for the admin. Presets are computed
 * from the server's local day (`today` of the last answer), so the phone's clock and time zone do not matter.
 */
import { useState } from 'react';
import { addDays, daysBetween, MAX_REPORT_DAYS } from '../../../domain/reports.schema';
import type { Merchant } from '../../../domain/merchants.schema';
import type { Option } from '../../../http/reports-api';
import { MerchantFilter } from '../../../ui/merchant-filter';

export interface ReportFilters {
  from?: string | undefined;
  to?: string | undefined;
  date?: string | undefined;
  venue_id?: number | undefined;
  merchant_id?: number | undefined;
}

export const PRESETS = [
  { key: 'today', label: '今天' },
  { key: 'yesterday', label: '昨天' },
  { key: '7d', label: '近 7 天' },
  { key: '30d', label: '近 30 天' },
  { key: 'month', label: '本月' },
] as const;
type PresetKey = (typeof PRESETS)[number]['key'];

export function presetRange(key: PresetKey, today: string): { from: string; to: string } {
  switch (key) {
    case 'today':
      return { from: today, to: today };
    case 'yesterday':
      return { from: addDays(today, -1), to: addDays(today, -1) };
    case '7d':
      return { from: addDays(today, -6), to: today };
    case '30d':
      return { from: addDays(today, -29), to: today };
    case 'month':
      return { from: `${today.slice(0, 8)}01`, to: today };
  }
}

interface Props {
  daily: boolean;
  value: ReportFilters;
  /** The range the last answer covered, and the server's today. */
  shown: { from: string; to: string; today: string } | undefined;
  venues: Option[] | undefined;
  /** The admin's merchant filter: shown when `admin`; the list undefined while it loads. */
  admin: boolean;
  merchants: Pick<Merchant, 'id' | 'name' | 'status'>[] | undefined;
  merchantsFailed: boolean;
  onChange: (next: ReportFilters) => void;
}

const chip = (active: boolean) =>
  `btn btn-xs rounded-full ${active ? 'btn-primary' : 'btn-ghost bg-base-100'}`;

function RangePicker({ value, shown, onChange }: Pick<Props, 'value' | 'shown' | 'onChange'>) {
  const today = shown?.today;
  const active = today
    ? PRESETS.find((p) => {
        const r = presetRange(p.key, today);
        return r.from === shown.from && r.to === shown.to;
      })?.key
    : 'today';
  const [custom, setCustom] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const setRange = (from: string, to: string) => {
    if (!from || !to) return;
    if (from > to) return setError('开始日期不能晚于结束日期');
    if (daysBetween(from, to) > MAX_REPORT_DAYS) return setError(`日期范围最长 ${MAX_REPORT_DAYS} 天`);
    setError(null);
    onChange({ ...value, from, to });
  };
  return (
    <div className="flex flex-col gap-2">
      <div className="flex flex-wrap gap-1.5" role="group" aria-label="日期范围">
        {PRESETS.map((p) => (
          <button
            key={p.key}
            type="button"
            className={chip(!custom && active === p.key)}
            disabled={!today}
            onClick={() => {
              setCustom(false);
              setError(null);
              if (today) onChange({ ...value, ...presetRange(p.key, today) });
            }}
          >
            {p.label}
          </button>
        ))}
        <button
          type="button"
          className={chip(custom || (!!today && !active))}
          onClick={() => setCustom(true)}
        >
          自定义
        </button>
      </div>
      {(custom || (!!today && !active)) && (
        <div className="flex items-center gap-1.5 text-sm">
          <input
            type="date"
            aria-label="开始日期"
            className="input input-sm w-36"
            value={value.from ?? shown?.from ?? ''}
            max={today}
            onChange={(e) => setRange(e.target.value, value.to ?? shown?.to ?? '')}
          />
          <span>至</span>
          <input
            type="date"
            aria-label="结束日期"
            className="input input-sm w-36"
            value={value.to ?? shown?.to ?? ''}
            max={today}
            onChange={(e) => setRange(value.from ?? shown?.from ?? '', e.target.value)}
          />
        </div>
      )}
      {error && <p className="text-xs text-error">{error}</p>}
    </div>
  );
}

function DayPicker({ value, shown, onChange }: Pick<Props, 'value' | 'shown' | 'onChange'>) {
  const day = value.date ?? shown?.from;
  const today = shown?.today;
  const go = (date: string) => onChange({ ...value, date });
  return (
    <div className="flex items-center gap-1.5" role="group" aria-label="日期">
      <button
        type="button"
        className="btn btn-xs btn-ghost bg-base-100"
        disabled={!day}
        onClick={() => day && go(addDays(day, -1))}
      >
        前一天
      </button>
      <input
        type="date"
        aria-label="日期"
        className="input input-sm w-36"
        value={day ?? ''}
        max={today}
        onChange={(e) => e.target.value && go(e.target.value)}
      />
      <button
        type="button"
        className="btn btn-xs btn-ghost bg-base-100"
        disabled={!day || !today || day >= today}
        onClick={() => day && go(addDays(day, 1))}
      >
        后一天
      </button>
      {today && day !== today && (
        <button type="button" className="btn btn-xs btn-ghost" onClick={() => go(today)}>
          今天
        </button>
      )}
    </div>
  );
}

function Select(props: {
  label: string;
  all: string;
  options: Option[];
  value: number | undefined;
  onChange: (id: number | undefined) => void;
}) {
  return (
    <label className="flex min-w-0 flex-1 items-center gap-1 text-sm">
      <span className="shrink-0 text-base-content/60">{props.label}</span>
      <select
        className="select select-sm min-w-0 flex-1"
        aria-label={props.label}
        value={props.value ?? ''}
        onChange={(e) => props.onChange(e.target.value ? Number(e.target.value) : undefined)}
      >
        <option value="">{props.all}</option>
        {props.options.map((o) => (
          <option key={o.id} value={o.id}>
            {o.name}
          </option>
        ))}
      </select>
    </label>
  );
}

export function ReportFilterBar(props: Props) {
  const { value, onChange } = props;
  return (
    <div className="flex flex-col gap-2 px-4 pt-3">
      {props.daily ? <DayPicker {...props} /> : <RangePicker {...props} />}
      {(props.admin || !!props.venues?.length) && (
        <div className="flex gap-2">
          {props.admin && (
            <MerchantFilter
              className="select-sm min-w-0 flex-1"
              merchants={props.merchants}
              failed={props.merchantsFailed}
              value={value.merchant_id}
              onChange={(merchant_id) => onChange({ ...value, merchant_id, venue_id: undefined })}
            />
          )}
          {!!props.venues?.length && (
            <Select
              label="场地"
              all="全部场地"
              options={props.venues}
              value={value.venue_id}
              onChange={(venue_id) => onChange({ ...value, venue_id })}
            />
          )}
        </div>
      )}
    </div>
  );
}
