import React, { useMemo } from "react";
import { formatPrice } from "../utils/format";

export interface CartLine {
  isbn: string;
  title: string;
  quantity: number;
  unitPriceMinor: number;
}

export interface CartSummaryProps {
  lines: CartLine[];
  currency: string;
  discountMinor: number;
  onRemove: (isbn: string) => void;
  onQuantityChange: (isbn: string, quantity: number) => void;
}

const FREE_SHIPPING_THRESHOLD_MINOR = 2500;
const STANDARD_SHIPPING_MINOR = 399;

/**
 * Estimates the basket totals client-side for display only. The server
 * re-prices everything at checkout, so this must stay in step with the
 * free-shipping rule in the orders API but is never authoritative.
 */
export function estimateTotals(lines: CartLine[], discountMinor: number) {
  const subtotal = lines.reduce((sum, line) => sum + line.unitPriceMinor * line.quantity, 0);
  const discount = Math.min(discountMinor, subtotal);
  const afterDiscount = subtotal - discount;
  const shipping = afterDiscount >= FREE_SHIPPING_THRESHOLD_MINOR || subtotal === 0 ? 0 : STANDARD_SHIPPING_MINOR;
  return { subtotal, discount, shipping, total: afterDiscount + shipping, toFreeShipping: Math.max(0, FREE_SHIPPING_THRESHOLD_MINOR - afterDiscount) };
}

export function CartSummary({ lines, currency, discountMinor, onRemove, onQuantityChange }: CartSummaryProps) {
  const totals = useMemo(() => estimateTotals(lines, discountMinor), [lines, discountMinor]);

  if (lines.length === 0) {
    return <aside className="cart-summary cart-summary--empty">Your basket is empty.</aside>;
  }

  return (
    <aside className="cart-summary">
      <ul>
        {lines.map((line) => (
          <li key={line.isbn}>
            <span className="cart-summary__title">{line.title}</span>
            <select
              value={line.quantity}
              onChange={(e) => onQuantityChange(line.isbn, Number(e.target.value))}
              aria-label={`Quantity of ${line.title}`}
            >
              {Array.from({ length: 10 }, (_, i) => i + 1).map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
            </select>
            <span>{formatPrice(line.unitPriceMinor * line.quantity, currency)}</span>
            <button type="button" onClick={() => onRemove(line.isbn)} aria-label={`Remove ${line.title}`}>
              ×
            </button>
          </li>
        ))}
      </ul>
      <dl>
        <dt>Subtotal</dt>
        <dd>{formatPrice(totals.subtotal, currency)}</dd>
        {totals.discount > 0 && (
          <>
            <dt>Discount</dt>
            <dd>−{formatPrice(totals.discount, currency)}</dd>
          </>
        )}
        <dt>Shipping</dt>
        <dd>{totals.shipping === 0 ? "Free" : formatPrice(totals.shipping, currency)}</dd>
        <dt className="cart-summary__total">Total</dt>
        <dd className="cart-summary__total">{formatPrice(totals.total, currency)}</dd>
      </dl>
      {totals.toFreeShipping > 0 && (
        <p className="cart-summary__nudge">
          Spend {formatPrice(totals.toFreeShipping, currency)} more for free delivery.
        </p>
      )}
    </aside>
  );
}
