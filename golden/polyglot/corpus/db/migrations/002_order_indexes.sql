-- 002_order_indexes.sql
-- Indexes for the hot order queries found in pg_stat_statements after launch.

-- "Your orders" page: keyset pagination by customer, newest first.
CREATE INDEX IF NOT EXISTS orders_customer_created_idx
    ON orders (customer_id, created_at DESC);

-- Idempotent order creation: one order per (customer, Idempotency-Key).
CREATE UNIQUE INDEX IF NOT EXISTS orders_customer_idempotency_key_idx
    ON orders (customer_id, idempotency_key)
    WHERE idempotency_key IS NOT NULL;

-- Support dashboard filters on status and on orders flagged for review.
CREATE INDEX IF NOT EXISTS orders_status_created_idx
    ON orders (status, created_at);

CREATE INDEX IF NOT EXISTS orders_needs_review_idx
    ON orders (created_at)
    WHERE needs_review = true;

-- Worker reads lines in display order.
CREATE INDEX IF NOT EXISTS order_lines_order_position_idx
    ON order_lines (order_id, position);

-- Sales reports aggregate by title.
CREATE INDEX IF NOT EXISTS order_lines_isbn_idx
    ON order_lines (isbn);

-- Reservation sweeper deletes expired holds.
CREATE INDEX IF NOT EXISTS reservations_expires_at_idx
    ON reservations (expires_at);
