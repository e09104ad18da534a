// A price group's prices set per model, as readable text (price-text.ts): the model, then its price's lines.
import { priceLines, type Price } from '../../price-text.ts';

/** A price group as GET /admin/price-groups answers it. */
export interface PriceGroupView {
  name: string;
  multiplier: number;
  prices: Record<string, Price>;
  created_at: number;
  updated_at: number;
}

export function GroupPrices({ prices }: { prices: Record<string, Price> }) {
  const models = Object.keys(prices).sort();
  if (models.length === 0) return <span class="muted">none: list prices × multiplier</span>;
  return (
    <dl class="group-prices">
      {models.map((m) => (
        <div key={m} data-model={m}>
          <dt>{m}</dt>
          {priceLines(prices[m]!).map((l, i) => (
            <dd key={i}>{l}</dd>
          ))}
        </div>
      ))}
    </dl>
  );
}
