import { Router, Request } from "express";
import { Pool, PoolClient } from "pg";
import { requireRole } from "../middleware/auth";
import { ApiError, ConflictError, NotFoundError, ValidationError } from "../lib/errors";
import { withRetry } from "../lib/retry";
import { validateAddress, isValidIsbn13 } from "../lib/validation";
import {
  canTransition,
  Money,
  Order,
  OrderLine,
  OrderStatus,
  ShippingAddress,
  sumMoney,
} from "../models/order";

export const ordersRouter = Router();
const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 20 });

const PAGE_SIZE_DEFAULT = 20;
const PAGE_SIZE_MAX = 100;
const FREE_SHIPPING_THRESHOLD_MINOR = 2500;
const STANDARD_SHIPPING_MINOR = 399;

// ---------------------------------------------------------------------------
// Row mapping
// ---------------------------------------------------------------------------

interface OrderRow {
  id: string;
  customer_id: string;
  status: OrderStatus;
  currency: Money["currency"];
  subtotal_minor: number;
  shipping_minor: number;
  discount_minor: number;
  total_minor: number;
  address: ShippingAddress;
  idempotency_key: string | null;
  created_at: Date;
  updated_at: Date;
}

interface OrderLineRow {
  isbn: string;
  title: string;
  quantity: number;
  unit_price_minor: number;
}

function money(amountMinor: number, currency: Money["currency"]): Money {
  return { amountMinor, currency };
}

function toOrder(row: OrderRow, lines: OrderLineRow[]): Order {
  return {
    id: row.id,
    customerId: row.customer_id,
    status: row.status,
    lines: lines.map((l) => ({
      isbn: l.isbn,
      title: l.title,
      quantity: l.quantity,
      unitPrice: money(l.unit_price_minor, row.currency),
    })),
    subtotal: money(row.subtotal_minor, row.currency),
    shipping: money(row.shipping_minor, row.currency),
    discount: money(row.discount_minor, row.currency),
    total: money(row.total_minor, row.currency),
    address: row.address,
    idempotencyKey: row.idempotency_key ?? undefined,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

async function fetchOrder(client: Pool | PoolClient, id: string): Promise<Order | null> {
  const { rows } = await client.query<OrderRow>("SELECT * FROM orders WHERE id = $1", [id]);
  if (rows.length === 0) return null;
  const lines = await client.query<OrderLineRow>(
    "SELECT isbn, title, quantity, unit_price_minor FROM order_lines WHERE order_id = $1 ORDER BY position",
    [id],
  );
  return toOrder(rows[0], lines.rows);
}

// ---------------------------------------------------------------------------
// Validation of incoming order payloads
// ---------------------------------------------------------------------------

interface CreateOrderBody {
  lines: { isbn: string; quantity: number }[];
  address: Partial<ShippingAddress>;
  currency?: Money["currency"];
  couponCode?: string;
}

/**
 * Validates the body of POST /v1/orders. Collects all line-level problems
 * (bad ISBN, silly quantities, duplicates) before throwing so the client can
 * fix everything in one round trip.
 */
function parseCreateOrderBody(body: unknown): CreateOrderBody & { address: ShippingAddress } {
  const input = (body ?? {}) as Partial<CreateOrderBody>;
  const errors: Record<string, string> = {};
  if (!Array.isArray(input.lines) || input.lines.length === 0) {
    errors.lines = "an order needs at least one line";
  } else {
    const seen = new Set<string>();
    input.lines.forEach((line, idx) => {
      if (!isValidIsbn13(String(line?.isbn ?? ""))) {
        errors[`lines[${idx}].isbn`] = "invalid ISBN-13";
      } else if (seen.has(line.isbn)) {
        errors[`lines[${idx}].isbn`] = "duplicate title; increase the quantity instead";
      }
      seen.add(line?.isbn);
      if (!Number.isInteger(line?.quantity) || line.quantity < 1 || line.quantity > 20) {
        errors[`lines[${idx}].quantity`] = "must be between 1 and 20";
      }
    });
  }
  if (input.currency && !["GBP", "EUR", "USD"].includes(input.currency)) {
    errors.currency = "unsupported currency";
  }
  if (Object.keys(errors).length > 0) {
    throw new ValidationError(errors);
  }
  const address = validateAddress(input.address ?? {});
  return { ...(input as CreateOrderBody), address };
}

// ---------------------------------------------------------------------------
// Pricing
// ---------------------------------------------------------------------------

interface QuotedLine extends OrderLine {
  lineTotalMinor: number;
}

interface Quote {
  lines: QuotedLine[];
  subtotal: Money;
  shipping: Money;
  discount: Money;
  total: Money;
}

/**
 * Calls the Rust pricing service to price every line and apply the coupon,
 * then adds shipping. Orders over the free-shipping threshold ship free.
 */
async function quoteOrder(body: CreateOrderBody): Promise<Quote> {
  const currency = body.currency ?? "GBP";
  const response = await withRetry(async () => {
    const res = await fetch(`${process.env.PRICING_URL}/quote`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ currency, lines: body.lines, coupon: body.couponCode }),
    });
    if (res.status >= 500) throw new ApiError(502, "pricing_unavailable", "pricing service failed");
    if (res.status === 422) {
      const detail = await res.json();
      throw new ValidationError(detail.fields ?? { couponCode: "rejected by pricing" });
    }
    return res.json() as Promise<{
      lines: { isbn: string; title: string; quantity: number; unitPriceMinor: number }[];
      discountMinor: number;
    }>;
  });

  const lines: QuotedLine[] = response.lines.map((l) => ({
    isbn: l.isbn,
    title: l.title,
    quantity: l.quantity,
    unitPrice: money(l.unitPriceMinor, currency),
    lineTotalMinor: l.unitPriceMinor * l.quantity,
  }));
  const subtotal = sumMoney(lines.map((l) => money(l.lineTotalMinor, currency)), currency);
  const discount = money(Math.min(response.discountMinor, subtotal.amountMinor), currency);
  const afterDiscount = subtotal.amountMinor - discount.amountMinor;
  const shipping = money(afterDiscount >= FREE_SHIPPING_THRESHOLD_MINOR ? 0 : STANDARD_SHIPPING_MINOR, currency);
  const total = money(afterDiscount + shipping.amountMinor, currency);
  return { lines, subtotal, shipping, discount, total };
}

// ---------------------------------------------------------------------------
// Persistence helpers
// ---------------------------------------------------------------------------

async function inTransaction<T>(fn: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const result = await fn(client);
    await client.query("COMMIT");
    return result;
  } catch (err) {
    await client.query("ROLLBACK");
    throw err;
  } finally {
    client.release();
  }
}

/**
 * Looks up an order previously created with the same Idempotency-Key for this
 * customer. Mobile clients retry POSTs on flaky networks, and without this we
 * would create (and charge) duplicate orders.
 */
async function findByIdempotencyKey(customerId: string, key: string): Promise<Order | null> {
  const { rows } = await pool.query<{ id: string }>(
    "SELECT id FROM orders WHERE customer_id = $1 AND idempotency_key = $2",
    [customerId, key],
  );
  return rows.length ? fetchOrder(pool, rows[0].id) : null;
}

async function insertOrder(
  client: PoolClient,
  customerId: string,
  quote: Quote,
  address: ShippingAddress,
  idempotencyKey: string | undefined,
): Promise<string> {
  const { rows } = await client.query<{ id: string }>(
    `INSERT INTO orders (customer_id, status, currency, subtotal_minor, shipping_minor,
                         discount_minor, total_minor, address, idempotency_key)
     VALUES ($1, 'pending_payment', $2, $3, $4, $5, $6, $7, $8)
     RETURNING id`,
    [
      customerId,
      quote.total.currency,
      quote.subtotal.amountMinor,
      quote.shipping.amountMinor,
      quote.discount.amountMinor,
      quote.total.amountMinor,
      JSON.stringify(address),
      idempotencyKey ?? null,
    ],
  );
  const orderId = rows[0].id;
  for (const [position, line] of quote.lines.entries()) {
    await client.query(
      `INSERT INTO order_lines (order_id, position, isbn, title, quantity, unit_price_minor)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [orderId, position, line.isbn, line.title, line.quantity, line.unitPrice.amountMinor],
    );
  }
  // The Python worker picks this up and reserves stock + takes payment.
  await client.query("INSERT INTO outbox (topic, payload) VALUES ('order.created', $1)", [
    JSON.stringify({ orderId }),
  ]);
  return orderId;
}

async function transitionOrder(id: string, to: OrderStatus, reason?: string): Promise<Order> {
  return inTransaction(async (client) => {
    const { rows } = await client.query<OrderRow>("SELECT * FROM orders WHERE id = $1 FOR UPDATE", [id]);
    if (rows.length === 0) throw new NotFoundError("order", id);
    const from = rows[0].status;
    if (!canTransition(from, to)) {
      throw new ConflictError(`cannot move order from ${from} to ${to}`);
    }
    await client.query("UPDATE orders SET status = $2, updated_at = now() WHERE id = $1", [id, to]);
    await client.query(
      "INSERT INTO order_events (order_id, from_status, to_status, reason) VALUES ($1, $2, $3, $4)",
      [id, from, to, reason ?? null],
    );
    await client.query("INSERT INTO outbox (topic, payload) VALUES ($1, $2)", [
      `order.${to}`,
      JSON.stringify({ orderId: id, reason }),
    ]);
    return (await fetchOrder(client, id))!;
  });
}

// ---------------------------------------------------------------------------
// Routes
// ---------------------------------------------------------------------------

function parsePage(req: Request): { limit: number; cursor: string | null } {
  const limit = Math.min(Number(req.query.limit ?? PAGE_SIZE_DEFAULT) || PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX);
  const cursor = typeof req.query.cursor === "string" ? req.query.cursor : null;
  return { limit, cursor };
}

ordersRouter.post("/", async (req, res, next) => {
  try {
    const customerId = req.user!.sub;
    const idempotencyKey = req.header("idempotency-key") ?? undefined;
    if (idempotencyKey) {
      const existing = await findByIdempotencyKey(customerId, idempotencyKey);
      if (existing) {
        res.status(200).json(existing);
        return;
      }
    }
    const body = parseCreateOrderBody(req.body);
    const quote = await quoteOrder(body);
    const orderId = await inTransaction((client) =>
      insertOrder(client, customerId, quote, body.address, idempotencyKey),
    );
    res.status(201).location(`/v1/orders/${orderId}`).json(await fetchOrder(pool, orderId));
  } catch (err) {
    next(err);
  }
});

/**
 * Keyset pagination over the customer's orders, newest first. The cursor is
 * the created_at of the last order on the previous page, base64 encoded.
 */
ordersRouter.get("/", async (req, res, next) => {
  try {
    const { limit, cursor } = parsePage(req);
    const before = cursor ? new Date(Buffer.from(cursor, "base64url").toString()) : new Date();
    const { rows } = await pool.query<OrderRow>(
      `SELECT * FROM orders WHERE customer_id = $1 AND created_at < $2
       ORDER BY created_at DESC LIMIT $3`,
      [req.user!.sub, before, limit + 1],
    );
    const page = rows.slice(0, limit);
    const nextCursor =
      rows.length > limit
        ? Buffer.from(page[page.length - 1].created_at.toISOString()).toString("base64url")
        : null;
    res.json({ orders: page.map((r) => toOrder(r, [])), nextCursor });
  } catch (err) {
    next(err);
  }
});

ordersRouter.get("/:id", async (req, res, next) => {
  try {
    const order = await fetchOrder(pool, req.params.id);
    if (!order || order.customerId !== req.user!.sub) {
      throw new NotFoundError("order", req.params.id);
    }
    res.json(order);
  } catch (err) {
    next(err);
  }
});

ordersRouter.post("/:id/cancel", async (req, res, next) => {
  try {
    const order = await fetchOrder(pool, req.params.id);
    if (!order || order.customerId !== req.user!.sub) {
      throw new NotFoundError("order", req.params.id);
    }
    res.json(await transitionOrder(order.id, "cancelled", req.body?.reason ?? "customer_request"));
  } catch (err) {
    next(err);
  }
});

ordersRouter.post("/:id/refund", requireRole("support"), async (req, res, next) => {
  try {
    const reason = String(req.body?.reason ?? "").trim();
    if (reason.length < 5) {
      throw new ValidationError({ reason: "explain the refund in a few words" });
    }
    res.json(await transitionOrder(req.params.id, "refunded", reason));
  } catch (err) {
    next(err);
  }
});
