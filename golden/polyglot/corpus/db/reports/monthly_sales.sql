-- monthly_sales.sql
-- Finance report: revenue, orders and average basket per month and currency,
-- with month-on-month growth. Refunded and cancelled orders are excluded.

WITH paid_orders AS (
    SELECT
        o.id,
        o.currency,
        o.total_minor,
        o.discount_minor,
        date_trunc('month', o.created_at) AS month
    FROM orders o
    WHERE o.status IN ('paid', 'picking', 'shipped', 'delivered')
      AND o.created_at >= date_trunc('year', now()) - INTERVAL '1 year'
),
monthly AS (
    SELECT
        month,
        currency,
        count(*) AS orders,
        sum(total_minor) AS revenue_minor,
        sum(discount_minor) AS discounts_minor,
        round(avg(total_minor)) AS avg_basket_minor
    FROM paid_orders
    GROUP BY month, currency
)
SELECT
    to_char(month, 'YYYY-MM') AS month,
    currency,
    orders,
    revenue_minor / 100.0 AS revenue,
    discounts_minor / 100.0 AS discounts,
    avg_basket_minor / 100.0 AS avg_basket,
    round(
        100.0 * (revenue_minor - lag(revenue_minor) OVER w)
        / nullif(lag(revenue_minor) OVER w, 0),
        1
    ) AS revenue_growth_pct
FROM monthly
WINDOW w AS (PARTITION BY currency ORDER BY month)
ORDER BY month DESC, currency;
