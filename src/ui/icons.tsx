/**
 * The one set of line icons, inline SVG: no icon font on the pay path, and phones or headless browsers without an
 * emoji font still show them.
 */
const PATHS = {
  // staff states
  inbox:
    'M3 13l2.5-7.5A2 2 0 0 1 7.4 4h9.2a2 2 0 0 1 1.9 1.5L21 13v5a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2zm0 0h5l1.5 2.5h5L16 13h5',
  lock: 'M6 11h12v9H6zm2 0V8a4 4 0 0 1 8 0v3',
  notFound: 'M11 4a7 7 0 1 0 0 14 7 7 0 0 0 0-14zm5 12l4 4M9 9l4 4m0-4l-4 4',
  // end-user pages
  clock: 'M12 7v5l3 2M21 12a9 9 0 1 1-18 0 9 9 0 0 1 18 0Z',
  card: 'M3 7h18v10H3zM3 11h18M7 15h3',
  receipt: 'M6 3h12v18l-3-2-3 2-3-2-3 2zM9 8h6M9 12h6',
  chat: 'M4 5h16v11H9l-5 4z',
  info: 'M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18Zm0-10v6m0-9v.5',
  // both
  alert: 'M12 3 2 20h20L12 3Zm0 6v5m0 3v.5',
} as const;

export type IconName = keyof typeof PATHS;

export function Icon({ name, className = 'size-5' }: { name: IconName; className?: string }) {
  return (
    <svg
      viewBox="0 0 24 24"
      className={className}
      fill="none"
      stroke="currentColor"
      strokeWidth="1.8"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
    >
      <path d={PATHS[name]} />
    </svg>
  );
}
