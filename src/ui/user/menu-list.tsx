import { Icon, type IconName } from '../icons';

export interface MenuItem {
  label: string;
  icon: IconName;
  onClick: () => void;
}

/** A list of links with an icon and a chevron. */
export function MenuList({ items }: { items: MenuItem[] }) {
  return (
    <ul className="list rounded-box bg-base-100">
      {items.map((it) => (
        <li key={it.label}>
          <button type="button" className="list-row w-full items-center text-left" onClick={it.onClick}>
            <span className="text-primary">
              <Icon name={it.icon} />
            </span>
            <span className="list-col-grow">{it.label}</span>
            <span className="text-base-content/40" aria-hidden="true">
              ›
            </span>
          </button>
        </li>
      ))}
    </ul>
  );
}
