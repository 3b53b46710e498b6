-- 001_initial_schema.sql
-- Initial Pagebound schema: customers, catalogue, stock, orders, payments,
-- shipping, outbox and loyalty. Money is always stored as integer minor units
-- (pence/cents) next to a currency code; never use NUMERIC or floats for it.

CREATE EXTENSION IF NOT EXISTS pgcrypto;

-- ---------------------------------------------------------------------------
-- Customers
-- ---------------------------------------------------------------------------

CREATE TABLE customers (
    id                UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    email             TEXT        NOT NULL,
    name              TEXT        NOT NULL,
    password_hash     TEXT,
    marketing_opt_in  BOOLEAN     NOT NULL DEFAULT false,
    tier              TEXT        NOT NULL DEFAULT 'bronze',
    tier_changed_at   TIMESTAMPTZ,
    points_balance    INTEGER     NOT NULL DEFAULT 0,
    last_order_at     TIMESTAMPTZ,
    created_at        TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT customers_tier_check CHECK (tier IN ('bronze', 'silver', 'gold')),
    CONSTRAINT customers_points_nonnegative CHECK (points_balance >= 0)
);

CREATE UNIQUE INDEX customers_email_lower_idx ON customers (lower(email));

CREATE TABLE customer_addresses (
    id           UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    customer_id  UUID NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
    label        TEXT NOT NULL DEFAULT 'home',
    name         TEXT NOT NULL,
    line1        TEXT NOT NULL,
    line2        TEXT,
    city         TEXT NOT NULL,
    postcode     TEXT NOT NULL,
    country      CHAR(2) NOT NULL DEFAULT 'GB',
    is_default   BOOLEAN NOT NULL DEFAULT false
);

CREATE INDEX customer_addresses_customer_idx ON customer_addresses (customer_id);

-- ---------------------------------------------------------------------------
-- Catalogue and stock
-- ---------------------------------------------------------------------------

CREATE TABLE books (
    isbn          CHAR(13) PRIMARY KEY,
    title         TEXT     NOT NULL,
    authors       TEXT[]   NOT NULL DEFAULT '{}',
    publisher     TEXT,
    published_on  DATE,
    price_minor   INTEGER  NOT NULL,
    currency      CHAR(3)  NOT NULL DEFAULT 'GBP',
    vat_class     TEXT     NOT NULL DEFAULT 'zero_rated',
    weight_grams  INTEGER,
    thickness_mm  INTEGER,
    stock         INTEGER  NOT NULL DEFAULT 0,
    cover_url     TEXT,
    CONSTRAINT books_price_positive CHECK (price_minor > 0),
    CONSTRAINT books_vat_class_check CHECK (vat_class IN ('zero_rated', 'standard', 'out_of_scope'))
);

CREATE INDEX books_publisher_idx ON books (publisher);

CREATE TABLE warehouses (
    code      TEXT PRIMARY KEY,
    name      TEXT NOT NULL,
    postcode  TEXT NOT NULL
);

CREATE TABLE stock_levels (
    warehouse  TEXT     NOT NULL REFERENCES warehouses (code),
    isbn       CHAR(13) NOT NULL REFERENCES books (isbn),
    on_hand    INTEGER  NOT NULL DEFAULT 0,
    reserved   INTEGER  NOT NULL DEFAULT 0,
    PRIMARY KEY (warehouse, isbn),
    CONSTRAINT stock_levels_nonnegative CHECK (on_hand >= 0 AND reserved >= 0)
);

CREATE INDEX stock_levels_isbn_idx ON stock_levels (isbn);

-- ---------------------------------------------------------------------------
-- Orders
-- ---------------------------------------------------------------------------

CREATE TABLE orders (
    id               UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    customer_id      UUID        NOT NULL REFERENCES customers (id),
    status           TEXT        NOT NULL DEFAULT 'pending_payment',
    currency         CHAR(3)     NOT NULL,
    subtotal_minor   INTEGER     NOT NULL,
    shipping_minor   INTEGER     NOT NULL DEFAULT 0,
    discount_minor   INTEGER     NOT NULL DEFAULT 0,
    total_minor      INTEGER     NOT NULL,
    address          JSONB       NOT NULL,
    idempotency_key  TEXT,
    needs_review     BOOLEAN     NOT NULL DEFAULT false,
    review_reason    TEXT,
    created_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT orders_status_check CHECK (status IN (
        'pending_payment', 'paid', 'picking', 'shipped', 'delivered', 'cancelled', 'refunded'
    )),
    CONSTRAINT orders_total_check CHECK (total_minor = subtotal_minor + shipping_minor - discount_minor)
);

CREATE TABLE order_lines (
    order_id          UUID     NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
    position          SMALLINT NOT NULL,
    isbn              CHAR(13) NOT NULL REFERENCES books (isbn),
    title             TEXT     NOT NULL,
    quantity          SMALLINT NOT NULL,
    unit_price_minor  INTEGER  NOT NULL,
    PRIMARY KEY (order_id, position),
    CONSTRAINT order_lines_quantity_check CHECK (quantity BETWEEN 1 AND 20)
);

-- Audit trail of every status change, written by the API, worker and admin.
CREATE TABLE order_events (
    id           BIGSERIAL PRIMARY KEY,
    order_id     UUID        NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
    from_status  TEXT        NOT NULL,
    to_status    TEXT        NOT NULL,
    reason       TEXT,
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE INDEX order_events_order_idx ON order_events (order_id, created_at);

CREATE TABLE order_notes (
    id          BIGSERIAL PRIMARY KEY,
    order_id    UUID        NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
    author      TEXT        NOT NULL,
    body        TEXT        NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE reservations (
    id          BIGSERIAL PRIMARY KEY,
    order_id    UUID        NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
    warehouse   TEXT        NOT NULL REFERENCES warehouses (code),
    isbn        CHAR(13)    NOT NULL,
    quantity    SMALLINT    NOT NULL,
    expires_at  TIMESTAMPTZ NOT NULL
);

CREATE INDEX reservations_order_idx ON reservations (order_id);

CREATE TABLE pick_lists (
    order_id    UUID PRIMARY KEY REFERENCES orders (id),
    warehouse   TEXT        NOT NULL REFERENCES warehouses (code),
    lines       JSONB       NOT NULL,
    picked_by   TEXT,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- ---------------------------------------------------------------------------
-- Payments
-- ---------------------------------------------------------------------------

CREATE TABLE payments (
    order_id        UUID PRIMARY KEY REFERENCES orders (id),
    charge_id       TEXT        NOT NULL UNIQUE,
    amount_minor    INTEGER     NOT NULL,
    refunded_minor  INTEGER     NOT NULL DEFAULT 0,
    status          TEXT        NOT NULL,
    created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT payments_refund_not_more_than_charge CHECK (refunded_minor <= amount_minor)
);

CREATE TABLE webhook_events (
    event_id     TEXT PRIMARY KEY,
    type         TEXT        NOT NULL,
    received_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE coupons (
    code             TEXT PRIMARY KEY,
    kind             TEXT        NOT NULL,
    percent_bp       INTEGER,
    amount_minor     INTEGER,
    currency         CHAR(3),
    min_spend_minor  INTEGER,
    expires_at       TIMESTAMPTZ,
    max_uses         INTEGER,
    used             INTEGER     NOT NULL DEFAULT 0,
    CONSTRAINT coupons_kind_check CHECK (kind IN ('percent', 'fixed', 'free_shipping'))
);

-- ---------------------------------------------------------------------------
-- Shipping
-- ---------------------------------------------------------------------------

CREATE TABLE shipments (
    order_id         UUID PRIMARY KEY REFERENCES orders (id),
    carrier          TEXT        NOT NULL,
    service          TEXT        NOT NULL,
    tracking_number  TEXT        NOT NULL UNIQUE,
    tracking_url     TEXT,
    price_minor      INTEGER     NOT NULL,
    label_pdf        TEXT,
    created_at       TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE tracking_events (
    id               BIGSERIAL PRIMARY KEY,
    tracking_number  TEXT        NOT NULL,
    status           TEXT        NOT NULL,
    occurred_at      TIMESTAMPTZ NOT NULL,
    location         TEXT
);

CREATE INDEX tracking_events_number_idx ON tracking_events (tracking_number, occurred_at);

-- ---------------------------------------------------------------------------
-- Transactional outbox: services write events here in the same transaction
-- as their state change; a relay publishes them to the worker queue.
-- ---------------------------------------------------------------------------

CREATE TABLE outbox (
    id            BIGSERIAL PRIMARY KEY,
    topic         TEXT        NOT NULL,
    payload       JSONB       NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    published_at  TIMESTAMPTZ
);

CREATE INDEX outbox_unpublished_idx ON outbox (id) WHERE published_at IS NULL;

-- ---------------------------------------------------------------------------
-- Loyalty
-- ---------------------------------------------------------------------------

CREATE TABLE point_transactions (
    id           BIGSERIAL PRIMARY KEY,
    customer_id  UUID        NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
    order_id     UUID REFERENCES orders (id),
    delta        INTEGER     NOT NULL,
    reason       TEXT        NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE INDEX point_transactions_customer_idx ON point_transactions (customer_id, created_at);

CREATE TABLE vouchers (
    code          TEXT PRIMARY KEY,
    customer_id   UUID        NOT NULL REFERENCES customers (id),
    amount_minor  INTEGER     NOT NULL,
    expires_at    TIMESTAMPTZ NOT NULL,
    redeemed_at   TIMESTAMPTZ
);
