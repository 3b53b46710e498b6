"""Fulfilment tasks consumed from the outbox queue.

Each handler is idempotent: the queue delivers at least once, so a task may
run twice for the same order (e.g. after a worker crash). Handlers check the
current order status before doing anything with side effects.
"""
from __future__ import annotations

import json
import logging
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

import psycopg
import redis

from .inventory import OutOfStock, release_expired_reservations, reserve_stock
from .models import Order, OrderStatus
from .notifications import Mailer, render
from .payments import PaymentClient, PaymentDeclined, PaymentUnavailable

log = logging.getLogger(__name__)

QUEUE_KEY = "fulfilment:queue"
DEAD_LETTER_KEY = "fulfilment:dead"
MAX_DELIVERIES = 8
VISIBILITY_TIMEOUT = timedelta(minutes=5)

TaskHandler = Callable[["TaskContext", dict[str, Any]], None]
HANDLERS: dict[str, TaskHandler] = {}


def task(topic: str) -> Callable[[TaskHandler], TaskHandler]:
    """Register a function as the handler for an outbox topic."""

    def decorator(fn: TaskHandler) -> TaskHandler:
        if topic in HANDLERS:
            raise ValueError(f"duplicate handler for {topic}")
        HANDLERS[topic] = fn
        return fn

    return decorator


@dataclass
class TaskContext:
    db: psycopg.Connection
    queue: redis.Redis
    payments: PaymentClient
    mailer: Mailer
    now: Callable[[], datetime] = field(default=lambda: datetime.now(timezone.utc))

    def load_order(self, order_id: str) -> Order:
        row = self.db.execute(
            "SELECT id, customer_id, status, currency, total_minor, address, created_at "
            "FROM orders WHERE id = %s",
            (order_id,),
        ).fetchone()
        if row is None:
            raise LookupError(f"order {order_id} not found")
        lines = self.db.execute(
            "SELECT isbn, title, quantity, unit_price_minor FROM order_lines "
            "WHERE order_id = %s ORDER BY position",
            (order_id,),
        ).fetchall()
        return Order(
            id=row[0], customer_id=row[1], status=row[2], currency=row[3], total_minor=row[4],
            address=row[5], created_at=row[6],
            lines=[dict(isbn=l[0], title=l[1], quantity=l[2], unit_price_minor=l[3]) for l in lines],
        )

    def set_status(self, order_id: str, expected: OrderStatus, new: OrderStatus, reason: str = "") -> bool:
        """Compare-and-set the order status. Returns False if someone else moved it first."""
        with self.db.transaction():
            updated = self.db.execute(
                "UPDATE orders SET status = %s, updated_at = now() WHERE id = %s AND status = %s",
                (new.value, order_id, expected.value),
            ).rowcount
            if updated:
                self.db.execute(
                    "INSERT INTO order_events (order_id, from_status, to_status, reason) "
                    "VALUES (%s, %s, %s, %s)",
                    (order_id, expected.value, new.value, reason or None),
                )
        return bool(updated)

    def enqueue(self, topic: str, payload: dict[str, Any], delay: timedelta | None = None) -> None:
        message = json.dumps({"topic": topic, "payload": payload, "deliveries": 0})
        due = (self.now() + (delay or timedelta())).timestamp()
        self.queue.zadd(QUEUE_KEY, {message: due})

    def customer_email(self, customer_id: str) -> str:
        row = self.db.execute("SELECT email FROM customers WHERE id = %s", (customer_id,)).fetchone()
        if row is None:
            raise LookupError(f"customer {customer_id} not found")
        return row[0]


# ---------------------------------------------------------------------------
# Task handlers
# ---------------------------------------------------------------------------


@task("order.created")
def handle_order_created(ctx: TaskContext, payload: dict[str, Any]) -> None:
    """Reserve stock, then take payment. Out-of-stock orders are cancelled."""
    order = ctx.load_order(payload["orderId"])
    if order.status is not OrderStatus.PENDING_PAYMENT:
        log.info("order %s already %s; skipping", order.id, order.status.value)
        return
    try:
        reserve_stock(ctx.db, order)
    except OutOfStock as exc:
        log.warning("order %s out of stock: %s", order.id, exc.isbns)
        ctx.set_status(order.id, OrderStatus.PENDING_PAYMENT, OrderStatus.CANCELLED, "out_of_stock")
        return
    ctx.enqueue("order.charge", {"orderId": order.id, "paymentToken": payload.get("paymentToken")})


@task("order.charge")
def handle_charge(ctx: TaskContext, payload: dict[str, Any]) -> None:
    """Charge the customer's card and mark the order paid.

    A decline cancels the order and frees the reserved stock. If the PSP is
    down we raise so the message is redelivered later with backoff.
    """
    order = ctx.load_order(payload["orderId"])
    if order.status is not OrderStatus.PENDING_PAYMENT:
        return
    try:
        result = ctx.payments.charge(order, payload["paymentToken"])
    except PaymentDeclined as exc:
        ctx.set_status(order.id, OrderStatus.PENDING_PAYMENT, OrderStatus.CANCELLED, f"declined:{exc.code}")
        ctx.db.execute("DELETE FROM reservations WHERE order_id = %s", (order.id,))
        return
    except PaymentUnavailable:
        raise
    ctx.db.execute(
        "INSERT INTO payments (order_id, charge_id, amount_minor, status) VALUES (%s, %s, %s, %s) "
        "ON CONFLICT (order_id) DO NOTHING",
        (order.id, result.charge_id, result.amount_minor, result.status),
    )
    if ctx.set_status(order.id, OrderStatus.PENDING_PAYMENT, OrderStatus.PAID, result.charge_id):
        email = ctx.customer_email(order.customer_id)
        ctx.mailer.send(email, "Your Pagebound order", render("order_confirmed", order))
        ctx.enqueue("order.pick", {"orderId": order.id})


@task("order.pick")
def handle_pick(ctx: TaskContext, payload: dict[str, Any]) -> None:
    """Create a pick list for the warehouse that holds the reservation."""
    order = ctx.load_order(payload["orderId"])
    if not ctx.set_status(order.id, OrderStatus.PAID, OrderStatus.PICKING):
        return
    warehouse = ctx.db.execute(
        "SELECT warehouse FROM reservations WHERE order_id = %s LIMIT 1", (order.id,)
    ).fetchone()[0]
    ctx.db.execute(
        "INSERT INTO pick_lists (order_id, warehouse, lines) VALUES (%s, %s, %s)",
        (order.id, warehouse, json.dumps([l.model_dump() for l in order.lines])),
    )


@task("order.shipped")
def handle_shipped(ctx: TaskContext, payload: dict[str, Any]) -> None:
    """Called by the shipping service once a label is printed; e-mails tracking info."""
    order = ctx.load_order(payload["orderId"])
    if not ctx.set_status(order.id, OrderStatus.PICKING, OrderStatus.SHIPPED, payload.get("trackingNumber", "")):
        return
    ctx.db.execute("DELETE FROM reservations WHERE order_id = %s", (order.id,))
    body = render("order_shipped", order, carrier=payload["carrier"], tracking_url=payload["trackingUrl"])
    ctx.mailer.send(ctx.customer_email(order.customer_id), "Your books are on the way", body)


@task("order.refunded")
def handle_refunded(ctx: TaskContext, payload: dict[str, Any]) -> None:
    """Refund the original charge in full after support approved it in the API."""
    order = ctx.load_order(payload["orderId"])
    row = ctx.db.execute("SELECT charge_id FROM payments WHERE order_id = %s", (order.id,)).fetchone()
    if row is None:
        log.error("refund requested for order %s with no payment", order.id)
        return
    ctx.payments.refund(row[0], order.total_minor, payload.get("reason") or "requested_by_customer")
    ctx.mailer.send(ctx.customer_email(order.customer_id), "Your refund", render("order_refunded", order))


@task("maintenance.release_reservations")
def handle_release_reservations(ctx: TaskContext, payload: dict[str, Any]) -> None:
    released = release_expired_reservations(ctx.db)
    log.info("released %d expired reservations", released)
    ctx.enqueue("maintenance.release_reservations", {}, delay=timedelta(minutes=5))


# ---------------------------------------------------------------------------
# Queue consumer loop
# ---------------------------------------------------------------------------


def redelivery_delay(deliveries: int) -> timedelta:
    """Backoff between redeliveries of a failed message: 10s, 20s, 40s ... capped at 30 min."""
    return timedelta(seconds=min(10 * 2 ** max(deliveries - 1, 0), 1800))


def pop_due_message(queue: redis.Redis, now: datetime) -> dict[str, Any] | None:
    """Atomically claim the oldest message whose due time has passed.

    The message is re-inserted with a visibility timeout so that, if this
    worker dies mid-task, another worker picks it up again later.
    """
    candidates = queue.zrangebyscore(QUEUE_KEY, 0, now.timestamp(), start=0, num=1)
    if not candidates:
        return None
    raw = candidates[0]
    if queue.zrem(QUEUE_KEY, raw) == 0:
        return None  # another worker claimed it first
    message = json.loads(raw)
    message["deliveries"] += 1
    queue.zadd(QUEUE_KEY, {json.dumps(message): (now + VISIBILITY_TIMEOUT).timestamp()})
    message["_claimed"] = json.dumps(message)
    return message


def process_message(ctx: TaskContext, message: dict[str, Any]) -> None:
    claimed = message.pop("_claimed")
    handler = HANDLERS.get(message["topic"])
    try:
        if handler is None:
            raise LookupError(f"no handler for topic {message['topic']}")
        handler(ctx, message["payload"])
    except Exception:
        log.exception("task %s failed (delivery %d)", message["topic"], message["deliveries"])
        ctx.queue.zrem(QUEUE_KEY, claimed)
        if message["deliveries"] >= MAX_DELIVERIES:
            ctx.queue.lpush(DEAD_LETTER_KEY, json.dumps(message))
        else:
            due = ctx.now() + redelivery_delay(message["deliveries"])
            ctx.queue.zadd(QUEUE_KEY, {json.dumps(message): due.timestamp()})
    else:
        ctx.queue.zrem(QUEUE_KEY, claimed)


class Worker:
    """Polls the queue until SIGTERM, then finishes the current task and exits."""

    def __init__(self, ctx: TaskContext, idle_sleep: float = 0.5) -> None:
        self.ctx = ctx
        self.idle_sleep = idle_sleep
        self._stopping = False

    def _request_stop(self, signum: int, _frame: object) -> None:
        log.info("received signal %d, stopping after current task", signum)
        self._stopping = True

    def run(self) -> None:
        signal.signal(signal.SIGTERM, self._request_stop)
        signal.signal(signal.SIGINT, self._request_stop)
        while not self._stopping:
            message = pop_due_message(self.ctx.queue, self.ctx.now())
            if message is None:
                time.sleep(self.idle_sleep)
                continue
            process_message(self.ctx, message)
        log.info("worker stopped")
