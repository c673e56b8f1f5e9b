import { Icon } from '../icons';

export interface PanelAction {
  label: string;
  primary?: boolean | undefined;
  onClick: () => void;
}

export interface ActionPanelProps {
  title: string;
  message: string;
  tone?: 'error' | 'info';
  actions: PanelAction[];
}

/** A failure (or notice) with its reason and the ways forward as buttons. */
export function ActionPanel({ title, message, tone = 'error', actions }: ActionPanelProps) {
  return (
    <section className="rounded-box bg-base-100 p-5 text-center" role={tone === 'error' ? 'alert' : 'status'}>
      <span className={`inline-block ${tone === 'error' ? 'text-error' : 'text-info'}`}>
        <Icon name={tone === 'error' ? 'alert' : 'info'} className="size-9" />
      </span>
      <p className="mt-2 font-semibold">{title}</p>
      <p className="mt-1 text-sm text-base-content/70" data-testid="failure-message">
        {message}
      </p>
      <div className="mt-4 flex flex-wrap justify-center gap-2">
        {actions.map((a) => (
          <button
            key={a.label}
            type="button"
            className={`btn btn-sm ${a.primary ? 'btn-primary' : 'btn-outline'}`}
            onClick={a.onClick}
          >
            {a.label}
          </button>
        ))}
      </div>
    </section>
  );
}
