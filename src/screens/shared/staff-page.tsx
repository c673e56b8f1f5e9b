import '../../styles/staff.css';
import type { ReactNode } from 'react';
import { useLocation } from 'wouter';
import { loadMe } from '../../app/staff-features';
import { useRequest } from '../../app/use-request';
import type { RouteDef } from '../../domain/routes';
import { EmptyState, ErrorState, Loading, NoPermission, PageHeader } from '../../ui';

export interface StaffPageProps {
  route: RouteDef;
  /** One line saying what the page is for. */
  description: string;
  /** The page body; without it the page says plainly that its management is not open yet. */
  children?: ReactNode;
}

/**
 * The frame of every staff page: header with its real title and back arrow, the permission check against the
 * features of the level (`GET /backend/auth/me`), and the body or an honest empty state.
 */
export function StaffPage({ route, description, children }: StaffPageProps) {
  const [, navigate] = useLocation();
  const me = useRequest(loadMe);
  const back = route.back;
  let body: ReactNode;
  if (me.loading) body = <Loading />;
  else if (me.error)
    body = <ErrorState message={me.error.message} onRetry={me.canRetry ? me.retry : undefined} />;
  else if (route.feature && !me.data?.features.includes(route.feature)) body = <NoPermission />;
  else
    body = (
      <>
        <p className="px-4 pt-4 text-sm text-base-content/60">{description}</p>
        {children ?? (
          <div className="m-4 rounded-box bg-base-100">
            {/* Not "暂无数据": the records may well exist (the demo has venues and devices); what is missing is
                this page's view of them, and saying so is the honest empty state. */}
            <EmptyState
              title="本页功能尚未开放"
              description="数据已由系统记录，查看与管理功能将在后续版本提供。"
            />
          </div>
        )}
      </>
    );
  return (
    <>
      <PageHeader title={route.title} onBack={back ? () => navigate(back) : undefined} />
      <main data-screen={route.id}>{body}</main>
    </>
  );
}
