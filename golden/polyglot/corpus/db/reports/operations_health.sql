-- operations_health.sql
-- Queries the on-call engineer runs from the runbook.

-- 1. Orders stuck in a non-final status for longer than expected.
SELECT
    o.id,
    o.status,
    o.updated_at,
    now() - o.updated_at AS stuck_for
FROM orders o
WHERE (o.status = 'pending_payment' AND o.updated_at < now() - INTERVAL '30 minutes')
   OR (o.status = 'paid' AND o.updated_at < now() - INTERVAL '2 hours')
   OR (o.status = 'picking' AND o.updated_at < now() - INTERVAL '2 days')
ORDER BY o.updated_at
LIMIT 200;

-- 2. Titles where reserved stock exceeds stock on hand (should never happen).
SELECT warehouse, isbn, on_hand, reserved
FROM stock_levels
WHERE reserved > on_hand
ORDER BY reserved - on_hand DESC;

-- 3. Outbox backlog by topic: events written but not yet published.
SELECT
    topic,
    count(*) AS pending,
    min(created_at) AS oldest
FROM outbox
WHERE published_at IS NULL
GROUP BY topic
ORDER BY pending DESC;

-- 4. Payment failure rate over the last 24 hours, by hour.
SELECT
    date_trunc('hour', created_at) AS hour,
    count(*) FILTER (WHERE status = 'failed') AS failed,
    count(*) AS total,
    round(100.0 * count(*) FILTER (WHERE status = 'failed') / nullif(count(*), 0), 2) AS failure_pct
FROM payments
WHERE created_at > now() - INTERVAL '24 hours'
GROUP BY 1
ORDER BY 1 DESC;
