import type { ReactNode } from 'react';
import { TabBar } from './tab-bar';

/** The main layout under `/`: page content above the bottom tab bar (loaded lazily, off the pay path). */
export default function MainLayout({ children }: { children: ReactNode }) {
  return (
    <div className="mx-auto min-h-dvh max-w-md bg-base-200 pb-[calc(4.5rem+env(safe-area-inset-bottom))]">
      {children}
      <TabBar />
    </div>
  );
}
