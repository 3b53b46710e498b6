import { Router } from "express";
import Redis from "ioredis";
import { isValidIsbn13, validateQuantity } from "../lib/validation";
import { ValidationError, NotFoundError } from "../lib/errors";
import { withRetry } from "../lib/retry";

export const cartRouter = Router();
const redis = new Redis(process.env.REDIS_URL ?? "redis://localhost:6379");

const CART_TTL_SECONDS = 60 * 60 * 24 * 7;

interface CartItem {
  isbn: string;
  quantity: number;
  unitPriceMinor: number;
}

interface Cart {
  items: CartItem[];
  couponCode?: string;
}

function cartKey(customerId: string): string {
  return `cart:${customerId}`;
}

async function loadCart(customerId: string): Promise<Cart> {
  const raw = await redis.get(cartKey(customerId));
  return raw ? (JSON.parse(raw) as Cart) : { items: [] };
}

async function saveCart(customerId: string, cart: Cart): Promise<void> {
  // Sliding expiry: every write pushes the abandonment deadline out again.
  await redis.set(cartKey(customerId), JSON.stringify(cart), "EX", CART_TTL_SECONDS);
}

/**
 * Asks the pricing service for the current price of a book. Prices are never
 * trusted from the client; the cart always stores what pricing returned.
 */
async function fetchUnitPrice(isbn: string): Promise<number> {
  return withRetry(async () => {
    const res = await fetch(`${process.env.PRICING_URL}/prices/${isbn}`);
    if (res.status === 404) throw new NotFoundError("book", isbn);
    if (!res.ok) throw new Error(`pricing returned ${res.status}`);
    const body = (await res.json()) as { amountMinor: number };
    return body.amountMinor;
  });
}

cartRouter.get("/", async (req, res, next) => {
  try {
    const cart = await loadCart(req.user!.sub);
    const subtotalMinor = cart.items.reduce((sum, i) => sum + i.unitPriceMinor * i.quantity, 0);
    res.json({ ...cart, subtotalMinor });
  } catch (err) {
    next(err);
  }
});

cartRouter.post("/items", async (req, res, next) => {
  try {
    const { isbn, quantity } = req.body ?? {};
    if (typeof isbn !== "string" || !isValidIsbn13(isbn)) {
      throw new ValidationError({ isbn: "must be a valid ISBN-13" });
    }
    const qty = validateQuantity(quantity);
    const cart = await loadCart(req.user!.sub);
    const existing = cart.items.find((i) => i.isbn === isbn);
    if (existing) {
      existing.quantity = Math.min(existing.quantity + qty, 20);
    } else {
      const maxItems = Number(process.env.MAX_CART_ITEMS ?? 50);
      if (cart.items.length >= maxItems) {
        throw new ValidationError({ items: `a cart can hold at most ${maxItems} titles` });
      }
      cart.items.push({ isbn, quantity: qty, unitPriceMinor: await fetchUnitPrice(isbn) });
    }
    await saveCart(req.user!.sub, cart);
    res.status(201).json(cart);
  } catch (err) {
    next(err);
  }
});

cartRouter.delete("/items/:isbn", async (req, res, next) => {
  try {
    const cart = await loadCart(req.user!.sub);
    cart.items = cart.items.filter((i) => i.isbn !== req.params.isbn);
    await saveCart(req.user!.sub, cart);
    res.json(cart);
  } catch (err) {
    next(err);
  }
});

cartRouter.post("/coupon", async (req, res, next) => {
  try {
    const code = String(req.body?.code ?? "").trim().toUpperCase();
    if (!/^[A-Z0-9]{4,16}$/.test(code)) {
      throw new ValidationError({ code: "coupon codes are 4-16 letters or digits" });
    }
    const cart = await loadCart(req.user!.sub);
    cart.couponCode = code;
    await saveCart(req.user!.sub, cart);
    res.json(cart);
  } catch (err) {
    next(err);
  }
});
