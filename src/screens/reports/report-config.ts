/**
 * What each report screen shows: the totals, the chart's stacked series by day, the day table and the rows table.
 * Pure data over the answer types; the screen (report-screen.tsx) renders any of them the same way.
 */
import { formatFen } from '../../domain/money';
import { METHOD_LABELS, type ReportAnswers, type ReportKind } from '../../domain/reports.schema';

export interface Column<R> {
  label: string;
  value: (r: R) => string | number;
  /** Numbers are right-aligned. */
  numeric?: boolean;
}

export interface Series<D> {
  label: string;
  color: string;
  value: (d: D) => number;
}

export interface KindConfig<K extends ReportKind> {
  totals: { label: string; value: (t: ReportAnswers[K]['totals']) => string }[];
  /** Stacked bars by day; values in fen when `money`. */
  series: Series<ReportAnswers[K]['days'][number]>[];
  money: boolean;
  dayColumns: Column<ReportAnswers[K]['days'][number]>[];
  rowsTitle: string;
  rowColumns: Column<ReportAnswers[K]['rows'][number]>[];
}

const fen = (n: number) => formatFen(n);
const percent = (bp: number) => `${(bp / 100).toFixed(2)}%`;
const day = (d: string) => d.slice(5);
const money = <R>(label: string, f: (r: R) => number): Column<R> => ({
  label,
  value: (r) => fen(f(r)),
  numeric: true,
});
const count = <R>(label: string, f: (r: R) => number): Column<R> => ({ label, value: f, numeric: true });

const COLORS = { a: '#2563eb', b: '#16a34a', c: '#f59e0b' };

export const REPORT_CONFIG: { [K in ReportKind]: KindConfig<K> } = {
  'device-usage': {
    totals: [
      { label: '收入', value: (t) => fen(t.revenue_fen) },
      { label: '使用次数', value: (t) => String(t.sessions) },
      { label: '使用分钟', value: (t) => String(t.minutes) },
      { label: '利用率', value: (t) => percent(t.utilisation_bp) },
    ],
    series: [{ label: '收入', color: COLORS.a, value: (d) => d.revenue_fen }],
    money: true,
    dayColumns: [
      { label: '日期', value: (d) => day(d.date) },
      count('次数', (d) => d.sessions),
      count('分钟', (d) => d.minutes),
      money('收入', (d) => d.revenue_fen),
    ],
    rowsTitle: '按设备',
    rowColumns: [
      { label: '设备', value: (r) => `${r.device_name}（${r.venue_name}）` },
      count('次数', (r) => r.sessions),
      count('分钟', (r) => r.minutes),
      money('收入', (r) => r.revenue_fen),
      money('退款', (r) => r.refund_fen),
      { label: '利用率', value: (r) => percent(r.utilisation_bp), numeric: true },
    ],
  },
  recharge: {
    totals: [
      { label: '充值净额', value: (t) => fen(t.net_fen) },
      { label: '实付', value: (t) => fen(t.paid_fen) },
      { label: '赠送', value: (t) => fen(t.bonus_fen) },
      { label: '退款', value: (t) => fen(t.refund_fen) },
    ],
    series: [
      { label: '微信', color: COLORS.b, value: (d) => d.wechat_fen },
      { label: '现金', color: COLORS.c, value: (d) => d.cash_fen },
    ],
    money: true,
    dayColumns: [
      { label: '日期', value: (d) => day(d.date) },
      count('笔数', (d) => d.count),
      money('微信', (d) => d.wechat_fen),
      money('现金', (d) => d.cash_fen),
      money('赠送', (d) => d.bonus_fen),
    ],
    rowsTitle: '按方式',
    rowColumns: [
      { label: '方式', value: (r) => METHOD_LABELS[r.method] },
      count('笔数', (r) => r.count),
      money('实付', (r) => r.paid_fen),
      money('赠送', (r) => r.bonus_fen),
      money('退款', (r) => r.refund_fen),
      money('净额', (r) => r.net_fen),
    ],
  },
  cash: {
    totals: [
      { label: '应有现金', value: (t) => fen(t.net_fen) },
      { label: '现金充值', value: (t) => `${fen(t.recharge_fen)} · ${t.recharge_count} 笔` },
      { label: '现金消费', value: (t) => `${fen(t.sale_fen)} · ${t.sale_count} 笔` },
      { label: '退还现金', value: (t) => fen(t.refund_fen) },
    ],
    series: [
      { label: '现金充值', color: COLORS.a, value: (d) => d.recharge_fen },
      { label: '现金消费(净)', color: COLORS.c, value: (d) => d.sale_fen - d.refund_fen },
    ],
    money: true,
    dayColumns: [
      { label: '日期', value: (d) => day(d.date) },
      money('充值', (d) => d.recharge_fen),
      money('消费', (d) => d.sale_fen),
      money('退还', (d) => d.refund_fen),
      money('应有', (d) => d.net_fen),
    ],
    rowsTitle: '按日与经办人',
    rowColumns: [
      { label: '日期', value: (r) => day(r.date) },
      { label: '经办人', value: (r) => r.account_name || '—' },
      money('充值', (r) => r.recharge_fen),
      money('消费', (r) => r.sale_fen),
      money('退还', (r) => r.refund_fen),
      money('应有', (r) => r.net_fen),
    ],
  },
  consumption: {
    totals: [
      { label: '消费净额', value: (t) => fen(t.net_fen) },
      { label: '订单', value: (t) => `${t.count} 笔` },
      { label: '消费金额', value: (t) => fen(t.amount_fen) },
      { label: '退款', value: (t) => fen(t.refund_fen) },
    ],
    series: [
      { label: '余额', color: COLORS.a, value: (d) => d.wallet_fen },
      { label: '微信', color: COLORS.b, value: (d) => d.wechat_fen },
      { label: '现金', color: COLORS.c, value: (d) => d.cash_fen },
    ],
    money: true,
    dayColumns: [
      { label: '日期', value: (d) => day(d.date) },
      count('笔数', (d) => d.count),
      money('余额', (d) => d.wallet_fen),
      money('微信', (d) => d.wechat_fen),
      money('现金', (d) => d.cash_fen),
      money('退款', (d) => d.refund_fen),
    ],
    rowsTitle: '按场地与方式',
    rowColumns: [
      { label: '场地', value: (r) => r.venue_name || '未关联场地' },
      { label: '方式', value: (r) => METHOD_LABELS[r.method] },
      count('笔数', (r) => r.count),
      money('金额', (r) => r.amount_fen),
      money('退款', (r) => r.refund_fen),
      money('净额', (r) => r.net_fen),
    ],
  },
};
