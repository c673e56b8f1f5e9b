/** Pieces of the cash desk screen: the member card, the package and amount picker, and today's list. */
import type { RechargePackage } from '../../../domain/api';
import type { CashRechargeList, EmployeeMember } from '../../../domain/cash-recharge.schema';
import { formatMemberCode } from '../../../domain/member-code';
import { Money } from '../../../ui';

export function MemberCard({ member, onClear }: { member: EmployeeMember; onClear?: () => void }) {
  return (
    <div className="flex items-center justify-between rounded-box bg-base-100 p-4" data-testid="cash-member">
      <div>
        <p className="font-semibold">{member.nickname}</p>
        <p className="font-mono text-sm text-base-content/60">会员码 {formatMemberCode(member.code)}</p>
        <p className="text-sm">
          本店余额 <Money fen={member.balance_fen} className="font-semibold" />
          <span className="text-xs text-base-content/50">
            {' '}
            (本金 <Money fen={member.principal_fen} /> · 赠送 <Money fen={member.bonus_fen} />)
          </span>
        </p>
      </div>
      {onClear && (
        <button type="button" className="btn btn-ghost btn-sm" onClick={onClear}>
          换会员
        </button>
      )}
    </div>
  );
}

export function PackagePicker(props: {
  packages: RechargePackage[];
  selected: number | null;
  onSelect: (id: number) => void;
}) {
  if (props.packages.length === 0) return null;
  return (
    <div className="grid grid-cols-2 gap-2">
      {props.packages.map((p) => (
        <button
          key={p.id}
          type="button"
          aria-pressed={props.selected === p.id}
          className={`btn h-auto flex-col py-2 ${props.selected === p.id ? 'btn-primary' : 'btn-outline'}`}
          onClick={() => props.onSelect(p.id)}
        >
          <span className="text-base">{p.name}</span>
          <span className="text-xs font-normal">
            收 <Money fen={p.pay_fen} /> · 送 <Money fen={p.bonus_fen} />
          </span>
        </button>
      ))}
    </div>
  );
}

export function TodaysCash({ list }: { list: CashRechargeList | undefined }) {
  if (!list) return null;
  return (
    <section className="space-y-2" data-testid="cash-today">
      <h2 className="flex justify-between text-sm font-medium text-base-content/70">
        <span>我今天的现金充值（{list.total} 笔）</span>
        <span>
          合计 <Money fen={list.total_fen} />
        </span>
      </h2>
      {list.items.length === 0 && (
        <p className="rounded-box bg-base-100 p-4 text-center text-sm text-base-content/50">
          今天还没有现金充值
        </p>
      )}
      {list.items.map((o) => (
        <div key={o.order_no} className="flex justify-between rounded-box bg-base-100 p-3 text-sm">
          <div>
            <p>
              {o.member.nickname} <span className="font-mono text-base-content/50">{o.member.code}</span>
            </p>
            <p className="text-xs text-base-content/50">
              {new Date(o.created_at).toLocaleTimeString('zh-CN', { hour: '2-digit', minute: '2-digit' })} ·{' '}
              {o.note}
            </p>
          </div>
          <div className="text-right">
            <Money fen={o.amount_fen} className="font-semibold" />
            {o.bonus_fen > 0 && (
              <p className="text-xs text-success">
                送 <Money fen={o.bonus_fen} />
              </p>
            )}
          </div>
        </div>
      ))}
    </section>
  );
}
