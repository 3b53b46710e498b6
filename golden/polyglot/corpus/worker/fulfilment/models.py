"""Data models shared by the fulfilment tasks.

Amounts are integers in minor units (pence), matching the orders API.
"""
from __future__ import annotations

from datetime import datetime
from enum import Enum

from pydantic import BaseModel, Field, field_validator


class OrderStatus(str, Enum):
    PENDING_PAYMENT = "pending_payment"
    PAID = "paid"
    PICKING = "picking"
    SHIPPED = "shipped"
    DELIVERED = "delivered"
    CANCELLED = "cancelled"
    REFUNDED = "refunded"


class OrderLine(BaseModel):
    isbn: str = Field(min_length=13, max_length=13)
    title: str
    quantity: int = Field(gt=0, le=20)
    unit_price_minor: int = Field(ge=0)

    @property
    def line_total_minor(self) -> int:
        return self.quantity * self.unit_price_minor


class Address(BaseModel):
    name: str
    line1: str
    line2: str | None = None
    city: str
    postcode: str
    country: str = Field(min_length=2, max_length=2)

    @field_validator("postcode")
    @classmethod
    def normalise_postcode(cls, value: str) -> str:
        """Upper-case and put the single space back before the inward code."""
        compact = value.replace(" ", "").upper()
        return f"{compact[:-3]} {compact[-3:]}" if len(compact) > 3 else compact


class Order(BaseModel):
    id: str
    customer_id: str
    status: OrderStatus
    currency: str
    lines: list[OrderLine]
    total_minor: int
    address: Address
    created_at: datetime

    @property
    def item_count(self) -> int:
        return sum(line.quantity for line in self.lines)


class Reservation(BaseModel):
    """Stock held for an order in a particular warehouse until it ships or expires."""

    order_id: str
    warehouse: str
    isbn: str
    quantity: int
    expires_at: datetime


class PaymentResult(BaseModel):
    charge_id: str
    status: str
    amount_minor: int
    failure_code: str | None = None

    @property
    def succeeded(self) -> bool:
        return self.status == "succeeded"
