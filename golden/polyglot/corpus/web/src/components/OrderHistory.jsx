import { useCallback, useEffect, useState } from "react";
import { api } from "../utils/apiClient";
import { formatOrderDate, formatPrice, statusLabel } from "../utils/format";

function OrderRow({ order }) {
  return (
    <tr className={`order-row order-row--${order.status}`}>
      <td>
        <a href={`/account/orders/${order.id}`}>#{order.id.slice(0, 8)}</a>
      </td>
      <td>{formatOrderDate(order.createdAt)}</td>
      <td>{statusLabel(order.status)}</td>
      <td className="numeric">{formatPrice(order.total.amountMinor, order.total.currency)}</td>
    </tr>
  );
}

/**
 * The "Your orders" page. Loads the first page on mount and appends further
 * pages using the opaque cursor returned by the API ("Load more" button).
 */
export default function OrderHistory() {
  const [orders, setOrders] = useState([]);
  const [cursor, setCursor] = useState(null);
  const [hasMore, setHasMore] = useState(true);
  const [error, setError] = useState(null);
  const [loading, setLoading] = useState(false);

  const loadPage = useCallback(async (pageCursor) => {
    setLoading(true);
    setError(null);
    try {
      const page = await api.listOrders(pageCursor);
      setOrders((prev) => (pageCursor ? [...prev, ...page.orders] : page.orders));
      setCursor(page.nextCursor);
      setHasMore(Boolean(page.nextCursor));
    } catch (err) {
      setError(err.message);
    } finally {
      setLoading(false);
    }
  }, []);

  useEffect(() => {
    loadPage(null);
  }, [loadPage]);

  if (!loading && orders.length === 0 && !error) {
    return <p className="empty-state">You haven't ordered anything yet.</p>;
  }

  return (
    <section className="order-history">
      <h1>Your orders</h1>
      {error && <div role="alert">Could not load orders: {error}</div>}
      <table>
        <thead>
          <tr>
            <th>Order</th>
            <th>Placed</th>
            <th>Status</th>
            <th>Total</th>
          </tr>
        </thead>
        <tbody>
          {orders.map((order) => (
            <OrderRow key={order.id} order={order} />
          ))}
        </tbody>
      </table>
      {hasMore && (
        <button type="button" disabled={loading} onClick={() => loadPage(cursor)}>
          {loading ? "Loading…" : "Load more"}
        </button>
      )}
    </section>
  );
}
