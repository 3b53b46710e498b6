package com.pagebound.app.data

import kotlinx.serialization.SerialName
import kotlinx.serialization.Serializable

@Serializable
data class Money(
    val amountMinor: Long,
    val currency: String,
) {
    operator fun plus(other: Money): Money {
        require(currency == other.currency) { "currency mismatch: $currency vs ${other.currency}" }
        return Money(amountMinor + other.amountMinor, currency)
    }

    fun display(): String {
        val symbol = when (currency) {
            "GBP" -> "£"
            "EUR" -> "€"
            "USD" -> "$"
            else -> "$currency "
        }
        return "%s%d.%02d".format(symbol, amountMinor / 100, amountMinor % 100)
    }
}

@Serializable
enum class OrderStatus {
    @SerialName("pending_payment") PENDING_PAYMENT,
    @SerialName("paid") PAID,
    @SerialName("picking") PICKING,
    @SerialName("shipped") SHIPPED,
    @SerialName("delivered") DELIVERED,
    @SerialName("cancelled") CANCELLED,
    @SerialName("refunded") REFUNDED,
}

@Serializable
data class OrderLine(
    val isbn: String,
    val title: String,
    val quantity: Int,
    val unitPrice: Money,
)

@Serializable
data class ShippingAddress(
    val name: String,
    val line1: String,
    val line2: String? = null,
    val city: String,
    val postcode: String,
    val country: String = "GB",
)

@Serializable
data class Order(
    val id: String,
    val status: OrderStatus,
    val lines: List<OrderLine> = emptyList(),
    val total: Money,
    val createdAt: String,
) {
    val isCancellable: Boolean
        get() = status == OrderStatus.PENDING_PAYMENT || status == OrderStatus.PAID
}

@Serializable
data class OrderPage(
    val orders: List<Order>,
    val nextCursor: String? = null,
)

@Serializable
data class CreateOrderRequest(
    val lines: List<LineRequest>,
    val address: ShippingAddress,
    val currency: String = "GBP",
    val couponCode: String? = null,
) {
    @Serializable
    data class LineRequest(val isbn: String, val quantity: Int)
}
