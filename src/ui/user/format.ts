/** Local date and time as `YYYY-MM-DD HH:mm` for history rows. */
export function shortTime(iso: string): string {
  const d = new Date(iso);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

export const ORDER_STATUS_LABELS: Record<string, string> = {
  pending: '待支付',
  paid: '已支付',
  started: '使用中',
  completed: '已完成',
  refunded: '已退款',
  closed: '已关闭',
  failed: '失败',
};
