"""Customer e-mails sent by the worker (order confirmation, dispatch, refunds)."""
from __future__ import annotations

import logging
from string import Template

import httpx

from .models import Order

log = logging.getLogger(__name__)

TEMPLATES = {
    "order_confirmed": Template(
        "Hi $name,\n\nThanks for your order $order_ref. We're getting your $items ready.\n"
        "Total paid: $total\n\nPagebound Books"
    ),
    "order_shipped": Template(
        "Hi $name,\n\nGood news: order $order_ref is on its way with $carrier.\n"
        "Track it here: $tracking_url\n\nPagebound Books"
    ),
    "order_refunded": Template(
        "Hi $name,\n\nWe've refunded $total for order $order_ref. It can take 5-10 days to appear.\n\n"
        "Pagebound Books"
    ),
}


def format_pounds(amount_minor: int, currency: str = "GBP") -> str:
    symbol = {"GBP": "£", "EUR": "€", "USD": "$"}.get(currency, currency + " ")
    return f"{symbol}{amount_minor // 100}.{amount_minor % 100:02d}"


def render(template: str, order: Order, **extra: str) -> str:
    """Fill in one of the e-mail templates for an order."""
    items = f"{order.item_count} book" + ("s" if order.item_count != 1 else "")
    return TEMPLATES[template].substitute(
        name=order.address.name.split()[0],
        order_ref=order.id[:8].upper(),
        items=items,
        total=format_pounds(order.total_minor, order.currency),
        **extra,
    )


class Mailer:
    """Sends transactional mail through the e-mail provider's HTTP API."""

    def __init__(self, api_url: str, api_key: str, sender: str = "orders@pagebound.example") -> None:
        self._client = httpx.Client(base_url=api_url, headers={"X-Api-Key": api_key}, timeout=5.0)
        self._sender = sender

    def send(self, to: str, subject: str, body: str) -> None:
        response = self._client.post("/send", json={"from": self._sender, "to": to,
                                                     "subject": subject, "text": body})
        if response.status_code >= 400:
            # E-mail is best effort: log and carry on rather than failing the order.
            log.error("mail to %s failed: %s %s", to, response.status_code, response.text[:200])
