import { useCallback, useState } from 'react';
import type { ScreenProps } from '../../app/screen-registry';
import { loadMe } from '../../app/staff-features';
import { useRequest } from '../../app/use-request';
import type { MerchantMember } from '../../domain/members.schema';
import { membersApi } from '../../http/people-api';
import { Money, Toast } from '../../ui';
import { ResourceList } from '../../ui/resource-list';
import { Sheet } from '../../ui/sheet';
import { shortTime } from '../../ui/user/format';
import { AdminMerchantFilter } from '../shared/admin-merchant-filter';
import { StaffPage } from '../shared/staff-page';
import { useResourceList } from '../shared/use-resource-list';
import { MemberDetail } from './parts/member-detail';

const PAGE_SIZE = 20;

/** One member: nickname and balance; orders, consumption, last visit (the admin: which merchant). */
function MemberRow({
  member: m,
  showMerchant,
  onOpen,
}: {
  member: MerchantMember;
  showMerchant: boolean;
  onOpen: () => void;
}) {
  return (
    <button type="button" className="w-full p-3 text-left" data-testid="member-row" onClick={onOpen}>
      <p className="flex justify-between font-medium">
        <span className="truncate">{m.nickname || `会员 ${m.id}`}</span>
        <Money fen={m.balance_fen} />
      </p>
      <p className="text-xs text-base-content/60">
        {m.orders} 笔订单 · 消费 <Money fen={m.consume_total_fen} />
        {m.last_visit_at && ` · 最近 ${shortTime(m.last_visit_at)}`}
        {showMerchant && ` · ${m.merchant_name}`}
      </p>
    </button>
  );
}

/**
 * `/merchant/members`: members with a wallet or an order here, paged and searchable (the admin: every merchant's,
 * with a merchant filter); a member's page (paged histories) and bonus credit in a sheet.
 */
export default function MembersScreen({ route }: ScreenProps) {
  const { filter, refilter, list, listProps } = useResourceList(
    membersApi.list,
    { q: '', merchant_id: undefined as number | undefined, page: 1 },
    PAGE_SIZE,
  );
  const me = useRequest(loadMe);
  const isAdmin = me.data?.user.level === 1;
  const [open, setOpen] = useState<MerchantMember | null>(null);
  const [toast, setToast] = useState<string | null>(null);
  const onDone = useCallback(
    (saved: boolean) => {
      setOpen(null);
      if (saved) {
        setToast('已赠送');
        list.refresh();
      }
    },
    [list],
  );
  return (
    <StaffPage
      route={route}
      description="在本商户有钱包或订单的会员：余额、最近到访与累计消费；可赠送余额作为补偿。"
    >
      <ResourceList
        {...listProps}
        keyOf={(m) => `${m.id}-${m.merchant_id}`}
        toolbar={
          <>
            <input
              type="search"
              className="input w-full"
              placeholder="搜索昵称或会员编号"
              aria-label="搜索会员"
              value={filter.q}
              onChange={(e) => refilter({ q: e.target.value })}
            />
            {isAdmin && (
              <AdminMerchantFilter
                value={filter.merchant_id}
                onChange={(merchant_id) => refilter({ merchant_id })}
              />
            )}
          </>
        }
        emptyTitle="暂无会员"
        emptyDescription="会员在本商户充值或使用设备后会出现在这里。"
        renderItem={(m) => <MemberRow member={m} showMerchant={isAdmin} onOpen={() => setOpen(m)} />}
      />
      <Sheet
        open={open !== null}
        title={
          open ? `${open.nickname || `会员 ${open.id}`}${isAdmin ? ` · ${open.merchant_name}` : ''}` : ''
        }
        onClose={() => setOpen(null)}
      >
        {open && <MemberDetail member={open} showMerchant={isAdmin} onDone={onDone} />}
      </Sheet>
      {toast && <Toast message={toast} kind="success" onClose={() => setToast(null)} />}
    </StaffPage>
  );
}
