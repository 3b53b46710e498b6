"""Stock reservation across warehouses.

A reservation holds copies of a book for an order until it is picked or the
hold expires. We prefer the warehouse that can ship the whole order, then the
one closest to the delivery postcode area.
"""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import psycopg

from .models import Order, Reservation

RESERVATION_TTL = timedelta(minutes=30)

# Postcode area -> preferred warehouse. Anything unmapped ships from Leeds.
REGION_WAREHOUSE = {
    "EH": "edinburgh", "G": "edinburgh", "AB": "edinburgh",
    "BS": "bristol", "EX": "bristol", "PL": "bristol", "CF": "bristol",
}
DEFAULT_WAREHOUSE = "leeds"


class OutOfStock(Exception):
    def __init__(self, isbns: list[str]) -> None:
        super().__init__(f"insufficient stock for {', '.join(isbns)}")
        self.isbns = isbns


def preferred_warehouse(postcode: str) -> str:
    """Pick a warehouse from the letters at the start of the postcode."""
    area = "".join(ch for ch in postcode[:2] if ch.isalpha()).upper()
    return REGION_WAREHOUSE.get(area) or REGION_WAREHOUSE.get(area[:1]) or DEFAULT_WAREHOUSE


def choose_warehouse(conn: psycopg.Connection, order: Order) -> str:
    """Return a warehouse that has every line in stock, preferring the regional one."""
    needed = {line.isbn: line.quantity for line in order.lines}
    rows = conn.execute(
        """
        SELECT warehouse, isbn, on_hand - reserved AS available
        FROM stock_levels
        WHERE isbn = ANY(%s)
        """,
        (list(needed),),
    ).fetchall()
    available: dict[str, dict[str, int]] = {}
    for warehouse, isbn, qty in rows:
        available.setdefault(warehouse, {})[isbn] = qty

    candidates = [
        wh for wh, stock in available.items()
        if all(stock.get(isbn, 0) >= qty for isbn, qty in needed.items())
    ]
    if not candidates:
        short = [isbn for isbn, qty in needed.items()
                 if max((s.get(isbn, 0) for s in available.values()), default=0) < qty]
        raise OutOfStock(short or list(needed))
    preferred = preferred_warehouse(order.address.postcode)
    return preferred if preferred in candidates else sorted(candidates)[0]


def reserve_stock(conn: psycopg.Connection, order: Order) -> list[Reservation]:
    """Reserve every line of the order in one warehouse inside a transaction."""
    warehouse = choose_warehouse(conn, order)
    expires = datetime.now(timezone.utc) + RESERVATION_TTL
    reservations = []
    with conn.transaction():
        for line in order.lines:
            updated = conn.execute(
                """
                UPDATE stock_levels SET reserved = reserved + %s
                WHERE warehouse = %s AND isbn = %s AND on_hand - reserved >= %s
                """,
                (line.quantity, warehouse, line.isbn, line.quantity),
            ).rowcount
            if updated != 1:
                raise OutOfStock([line.isbn])
            conn.execute(
                "INSERT INTO reservations (order_id, warehouse, isbn, quantity, expires_at) "
                "VALUES (%s, %s, %s, %s, %s)",
                (order.id, warehouse, line.isbn, line.quantity, expires),
            )
            reservations.append(Reservation(order_id=order.id, warehouse=warehouse, isbn=line.isbn,
                                            quantity=line.quantity, expires_at=expires))
    return reservations


def release_expired_reservations(conn: psycopg.Connection) -> int:
    """Give back stock held by reservations whose TTL has passed. Returns rows released."""
    with conn.transaction():
        rows = conn.execute(
            "DELETE FROM reservations WHERE expires_at < now() RETURNING warehouse, isbn, quantity"
        ).fetchall()
        for warehouse, isbn, quantity in rows:
            conn.execute(
                "UPDATE stock_levels SET reserved = reserved - %s WHERE warehouse = %s AND isbn = %s",
                (quantity, warehouse, isbn),
            )
    return len(rows)
