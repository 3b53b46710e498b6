/** Domain types for orders as stored in Postgres and returned by the API. */

export type OrderStatus =
  | "pending_payment"
  | "paid"
  | "picking"
  | "shipped"
  | "delivered"
  | "cancelled"
  | "refunded";

export interface Money {
  /** Amount in minor units (pence/cents) to avoid floating point drift. */
  amountMinor: number;
  currency: "GBP" | "EUR" | "USD";
}

export interface OrderLine {
  isbn: string;
  title: string;
  quantity: number;
  unitPrice: Money;
}

export interface ShippingAddress {
  name: string;
  line1: string;
  line2?: string;
  city: string;
  postcode: string;
  country: string;
}

export interface Order {
  id: string;
  customerId: string;
  status: OrderStatus;
  lines: OrderLine[];
  subtotal: Money;
  shipping: Money;
  discount: Money;
  total: Money;
  address: ShippingAddress;
  idempotencyKey?: string;
  createdAt: string;
  updatedAt: string;
}

/**
 * Allowed status transitions. Anything not listed here is rejected by
 * `canTransition` so that, for example, a shipped order cannot be cancelled.
 */
export const ORDER_TRANSITIONS: Record<OrderStatus, OrderStatus[]> = {
  pending_payment: ["paid", "cancelled"],
  paid: ["picking", "cancelled", "refunded"],
  picking: ["shipped", "cancelled"],
  shipped: ["delivered"],
  delivered: ["refunded"],
  cancelled: [],
  refunded: [],
};

export function canTransition(from: OrderStatus, to: OrderStatus): boolean {
  return ORDER_TRANSITIONS[from].includes(to);
}

export function sumMoney(values: Money[], currency: Money["currency"]): Money {
  let total = 0;
  for (const v of values) {
    if (v.currency !== currency) {
      throw new Error(`currency mismatch: ${v.currency} vs ${currency}`);
    }
    total += v.amountMinor;
  }
  return { amountMinor: total, currency };
}
