import { useEffect, useRef } from 'react';

/** Calls `refresh` every `ms` while the page is visible; paused while the tab is hidden, refreshed on return. */
export function useLiveRefresh(refresh: () => void, ms: number) {
  const cb = useRef(refresh);
  cb.current = refresh;
  useEffect(() => {
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') cb.current();
    }, ms);
    const onVisible = () => {
      if (document.visibilityState === 'visible') cb.current();
    };
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      clearInterval(timer);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [ms]);
}
