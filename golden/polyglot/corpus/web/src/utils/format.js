/**
 * Display helpers shared by the storefront components. Amounts always arrive
 * from the API in minor units (pence), never as floats.
 */

const formatters = new Map();

function currencyFormatter(currency, locale) {
  const key = `${locale}:${currency}`;
  if (!formatters.has(key)) {
    formatters.set(key, new Intl.NumberFormat(locale, { style: "currency", currency }));
  }
  return formatters.get(key);
}

/** Formats a price given in minor units, e.g. 1299 GBP -> "£12.99". */
export function formatPrice(amountMinor, currency = "GBP", locale = navigator.language) {
  return currencyFormatter(currency, locale).format(amountMinor / 100);
}

/** "3 Jun 2024" style date for order history rows. */
export function formatOrderDate(iso, locale = navigator.language) {
  return new Date(iso).toLocaleDateString(locale, { day: "numeric", month: "short", year: "numeric" });
}

const STATUS_LABELS = {
  pending_payment: "Awaiting payment",
  paid: "Paid",
  picking: "Being packed",
  shipped: "On its way",
  delivered: "Delivered",
  cancelled: "Cancelled",
  refunded: "Refunded",
};

export function statusLabel(status) {
  return STATUS_LABELS[status] ?? status;
}

/** Shortens long book titles for cards without cutting a word in half. */
export function truncateTitle(title, max = 60) {
  if (title.length <= max) return title;
  const cut = title.slice(0, max);
  const lastSpace = cut.lastIndexOf(" ");
  return `${cut.slice(0, lastSpace > 20 ? lastSpace : max)}…`;
}
