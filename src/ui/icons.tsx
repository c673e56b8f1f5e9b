/** Small inline SVG icons (no icon font, no emoji font needed: some WebViews and headless browsers lack one). */
const PATHS = {
  inbox:
    'M3 13l2.5-7.5A2 2 0 0 1 7.4 4h9.2a2 2 0 0 1 1.9 1.5L21 13v5a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2zm0 0h5l1.5 2.5h5L16 13h5',
  lock: 'M6 11h12v9H6zm2 0V8a4 4 0 0 1 8 0v3',
  alert: 'M12 4l9 16H3zm0 6v4m0 3v.01',
  notFound: 'M11 4a7 7 0 1 0 0 14 7 7 0 0 0 0-14zm5 12l4 4M9 9l4 4m0-4l-4 4',
} as const;

export type IconName = keyof typeof PATHS;

export function Icon({ name, className = 'size-10' }: { name: IconName; className?: string }) {
  return (
    <svg
      viewBox="0 0 24 24"
      className={className}
      fill="none"
      stroke="currentColor"
      strokeWidth="1.5"
      aria-hidden="true"
    >
      <path d={PATHS[name]} strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}
