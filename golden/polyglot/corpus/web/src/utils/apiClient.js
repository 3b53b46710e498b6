/**
 * Thin fetch wrapper for the storefront. Adds the bearer token, parses JSON,
 * turns API error bodies into ApiClientError and retries idempotent GETs.
 */

const BASE_URL = import.meta.env.VITE_API_URL ?? "/v1";

export class ApiClientError extends Error {
  constructor(status, body) {
    super(body?.message ?? `request failed with ${status}`);
    this.status = status;
    this.code = body?.error;
    this.fields = body?.details?.fields ?? {};
  }
}

function authHeaders() {
  const token = window.localStorage.getItem("pb_token");
  return token ? { Authorization: `Bearer ${token}` } : {};
}

const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export async function request(path, { method = "GET", body, headers = {}, retries = 2 } = {}) {
  const canRetry = method === "GET";
  for (let attempt = 0; ; attempt++) {
    let response;
    try {
      response = await fetch(`${BASE_URL}${path}`, {
        method,
        headers: { "Content-Type": "application/json", ...authHeaders(), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (networkError) {
      if (canRetry && attempt < retries) {
        await wait(300 * 2 ** attempt);
        continue;
      }
      throw networkError;
    }
    if (response.status >= 500 && canRetry && attempt < retries) {
      await wait(300 * 2 ** attempt);
      continue;
    }
    const payload = response.status === 204 ? null : await response.json();
    if (!response.ok) {
      throw new ApiClientError(response.status, payload);
    }
    return payload;
  }
}

export const api = {
  getCart: () => request("/cart"),
  addToCart: (isbn, quantity) => request("/cart/items", { method: "POST", body: { isbn, quantity } }),
  removeFromCart: (isbn) => request(`/cart/items/${isbn}`, { method: "DELETE" }),
  applyCoupon: (code) => request("/cart/coupon", { method: "POST", body: { code } }),
  listOrders: (cursor) => request(`/orders${cursor ? `?cursor=${cursor}` : ""}`),
  placeOrder: (order, idempotencyKey) =>
    request("/orders", { method: "POST", body: order, headers: { "Idempotency-Key": idempotencyKey } }),
  searchBooks: (q) => request(`/catalog/search?q=${encodeURIComponent(q)}`),
};
