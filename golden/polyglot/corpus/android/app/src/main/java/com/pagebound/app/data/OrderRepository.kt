package com.pagebound.app.data

import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.MutableStateFlow
import kotlinx.coroutines.flow.asStateFlow
import kotlinx.coroutines.sync.Mutex
import kotlinx.coroutines.sync.withLock
import java.io.IOException
import java.util.UUID

/** Retrofit-style service interface implemented by the HTTP layer. */
interface OrdersApi {
    suspend fun listOrders(cursor: String?): OrderPage
    suspend fun getOrder(id: String): Order
    suspend fun createOrder(body: CreateOrderRequest, idempotencyKey: String): Order
    suspend fun cancelOrder(id: String, reason: String): Order
}

class HttpException(val code: Int, message: String) : IOException(message)

/**
 * Single source of truth for the customer's orders on Android.
 *
 * Keeps the first page of orders in memory for [cacheTtlMillis] so switching
 * tabs doesn't refetch, and retries network failures with exponential backoff.
 */
class OrderRepository(
    private val api: OrdersApi,
    private val cacheTtlMillis: Long = 60_000,
    private val clock: () -> Long = System::currentTimeMillis,
) {
    private val mutex = Mutex()
    private var cachedAt: Long = 0
    private val _orders = MutableStateFlow<List<Order>>(emptyList())

    val orders: Flow<List<Order>> = _orders.asStateFlow()

    suspend fun refresh(force: Boolean = false): List<Order> = mutex.withLock {
        val fresh = clock() - cachedAt < cacheTtlMillis
        if (!force && fresh && _orders.value.isNotEmpty()) {
            return _orders.value
        }
        val page = withRetry { api.listOrders(cursor = null) }
        _orders.value = page.orders
        cachedAt = clock()
        page.orders
    }

    /**
     * Places an order. The idempotency key is generated once per checkout by
     * the caller and reused on retries so a flaky connection can't double-order.
     */
    suspend fun placeOrder(request: CreateOrderRequest, idempotencyKey: String = UUID.randomUUID().toString()): Order {
        val order = withRetry(retryOn = { it is IOException && it !is HttpException }) {
            api.createOrder(request, idempotencyKey)
        }
        mutex.withLock {
            _orders.value = listOf(order) + _orders.value.filterNot { it.id == order.id }
        }
        return order
    }

    suspend fun cancel(orderId: String, reason: String = "customer_request"): Order {
        val updated = withRetry { api.cancelOrder(orderId, reason) }
        mutex.withLock {
            _orders.value = _orders.value.map { if (it.id == orderId) updated else it }
        }
        return updated
    }

    fun invalidate() {
        cachedAt = 0
    }

    /** Retries [block] on transient errors: I/O failures and HTTP 5xx. */
    private suspend fun <T> withRetry(
        attempts: Int = 3,
        initialDelayMillis: Long = 500,
        retryOn: (Throwable) -> Boolean = ::isTransient,
        block: suspend () -> T,
    ): T {
        var delayMillis = initialDelayMillis
        repeat(attempts - 1) {
            try {
                return block()
            } catch (e: Exception) {
                if (!retryOn(e)) throw e
            }
            delay(delayMillis)
            delayMillis *= 2
        }
        return block()
    }

    private fun isTransient(error: Throwable): Boolean = when (error) {
        is HttpException -> error.code >= 500
        is IOException -> true
        else -> false
    }
}
