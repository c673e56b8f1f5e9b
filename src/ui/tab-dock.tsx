export interface TabDockItem {
  path: string;
  label: string;
  icon: 'home' | 'wallet' | 'me';
}

export interface TabDockProps {
  tabs: readonly TabDockItem[];
  /** Path of the active tab; null on deeper pages (no tab highlighted). */
  active: string | null;
  onSelect: (path: string) => void;
}

const ICONS: Record<TabDockItem['icon'], string> = {
  home: 'M3 10.5 12 3l9 7.5V20a1 1 0 0 1-1 1h-5v-6h-6v6H4a1 1 0 0 1-1-1z',
  wallet: 'M3 7a2 2 0 0 1 2-2h13v3M3 7v11a2 2 0 0 0 2 2h15V8H5a2 2 0 0 1-2-1zm13 6h2',
  me: 'M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8zm-8 9a8 8 0 0 1 16 0',
};

/** The bottom tab bar: a daisyUI dock with inline icons and Chinese labels, above the home indicator. */
export function TabDock({ tabs, active, onSelect }: TabDockProps) {
  return (
    <nav
      className="dock dock-md z-20 border-t border-base-300 bg-base-100 pb-[env(safe-area-inset-bottom)]"
      aria-label="底部导航"
    >
      {tabs.map((tab) => {
        const isActive = tab.path === active;
        return (
          <button
            key={tab.path}
            type="button"
            className={isActive ? 'dock-active text-primary' : 'text-base-content/70'}
            aria-current={isActive ? 'page' : undefined}
            onClick={() => onSelect(tab.path)}
          >
            <svg
              viewBox="0 0 24 24"
              className="size-6"
              fill="none"
              stroke="currentColor"
              strokeWidth="1.8"
              aria-hidden="true"
            >
              <path d={ICONS[tab.icon]} strokeLinecap="round" strokeLinejoin="round" />
            </svg>
            <span className="dock-label">{tab.label}</span>
          </button>
        );
      })}
    </nav>
  );
}
