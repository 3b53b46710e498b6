"""Client for the payment service provider (PSP).

Charges are made with an idempotency key derived from the order id, so a
retried charge after a timeout can never bill the customer twice.
"""
from __future__ import annotations

import logging
import random
import time
from dataclasses import dataclass

import httpx

from .models import Order, PaymentResult

log = logging.getLogger(__name__)

RETRYABLE_STATUS = {408, 409, 429, 500, 502, 503, 504}


class PaymentDeclined(Exception):
    """The card was declined; retrying will not help."""

    def __init__(self, code: str) -> None:
        super().__init__(f"payment declined: {code}")
        self.code = code


class PaymentUnavailable(Exception):
    """The PSP could not be reached after all retries."""


@dataclass
class RetryPolicy:
    attempts: int = 5
    base_delay: float = 0.5
    max_delay: float = 20.0

    def delay(self, attempt: int) -> float:
        """Exponential backoff with full jitter for the given (0-based) attempt."""
        return random.uniform(0, min(self.max_delay, self.base_delay * (2**attempt)))


class PaymentClient:
    def __init__(self, base_url: str, api_key: str, retry: RetryPolicy | None = None) -> None:
        self._http = httpx.Client(
            base_url=base_url,
            headers={"Authorization": f"Bearer {api_key}"},
            timeout=httpx.Timeout(10.0, connect=3.0),
        )
        self._retry = retry or RetryPolicy()

    def charge(self, order: Order, payment_token: str) -> PaymentResult:
        """Charge the order total to a tokenised card, retrying transient failures.

        Declines are raised immediately as PaymentDeclined. Network errors and
        retryable HTTP statuses are retried with exponential backoff; if every
        attempt fails we raise PaymentUnavailable and the task is re-queued.
        """
        payload = {
            "amount": order.total_minor,
            "currency": order.currency,
            "source": payment_token,
            "metadata": {"order_id": order.id},
        }
        headers = {"Idempotency-Key": f"order-{order.id}-charge"}
        for attempt in range(self._retry.attempts):
            try:
                response = self._http.post("/v1/charges", json=payload, headers=headers)
            except httpx.TransportError as exc:
                log.warning("charge transport error order=%s attempt=%d: %s", order.id, attempt, exc)
            else:
                if response.status_code == 402:
                    raise PaymentDeclined(response.json().get("decline_code", "unknown"))
                if response.status_code not in RETRYABLE_STATUS:
                    response.raise_for_status()
                    return PaymentResult.model_validate(response.json())
                log.warning("charge got %s order=%s attempt=%d", response.status_code, order.id, attempt)
            time.sleep(self._retry.delay(attempt))
        raise PaymentUnavailable(f"gave up charging order {order.id}")

    def refund(self, charge_id: str, amount_minor: int, reason: str) -> PaymentResult:
        """Refund part or all of a charge. Refunds are not retried automatically."""
        response = self._http.post(
            "/v1/refunds",
            json={"charge": charge_id, "amount": amount_minor, "reason": reason},
            headers={"Idempotency-Key": f"refund-{charge_id}-{amount_minor}"},
        )
        response.raise_for_status()
        return PaymentResult.model_validate(response.json())
