import type { ServicePrice } from '../../domain/api';
import { formatFen } from '../../domain/money';

export interface PriceCardsProps {
  prices: ServicePrice[];
  selectedId: number | null;
  disabled?: boolean;
  onSelect: (id: number) => void;
}

/** The venue's service prices as a radio group of cards (name, minutes, price). */
export function PriceCards({ prices, selectedId, disabled = false, onSelect }: PriceCardsProps) {
  if (prices.length === 0) {
    return <p className="rounded-box bg-base-100 p-4 text-sm text-base-content/60">该场地暂未设置收费标准</p>;
  }
  return (
    <div className="grid grid-cols-2 gap-3" role="radiogroup" aria-label="选择套餐">
      {prices.map((p) => {
        const active = p.id === selectedId;
        return (
          <button
            key={p.id}
            type="button"
            role="radio"
            aria-checked={active}
            disabled={disabled}
            data-testid={`price-${p.id}`}
            onClick={() => onSelect(p.id)}
            className={`rounded-box border-2 bg-base-100 p-3 text-left transition-colors ${
              active ? 'border-primary bg-primary/5' : 'border-transparent'
            }`}
          >
            <span className="block text-sm font-medium">{p.name}</span>
            {/* Names like "30 分钟" already say it. */}
            {!p.name.includes(String(p.minutes)) && (
              <span className="block text-xs text-base-content/60">{p.minutes} 分钟</span>
            )}
            <span className="mt-1 block text-lg font-semibold text-primary tabular-nums">
              {formatFen(p.price_fen)}
            </span>
          </button>
        );
      })}
    </div>
  );
}
