import type { ReactNode } from 'react';

/** The frame of an end-user page: phone width, grey backdrop so the white cards stand out. */
export function UserPage({ children, screen }: { children: ReactNode; screen: string }) {
  return (
    <div className="mx-auto min-h-dvh max-w-md bg-base-200" data-screen={screen}>
      {children}
    </div>
  );
}
