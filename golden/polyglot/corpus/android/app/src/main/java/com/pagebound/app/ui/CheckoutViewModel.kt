package com.pagebound.app.ui

import androidx.lifecycle.ViewModel
import androidx.lifecycle.viewModelScope
import com.pagebound.app.data.CreateOrderRequest
import com.pagebound.app.data.HttpException
import com.pagebound.app.data.OrderRepository
import com.pagebound.app.data.ShippingAddress
import kotlinx.coroutines.flow.MutableStateFlow
import kotlinx.coroutines.flow.StateFlow
import kotlinx.coroutines.flow.update
import kotlinx.coroutines.launch
import java.util.UUID

data class CheckoutUiState(
    val address: ShippingAddress = ShippingAddress(name = "", line1 = "", city = "", postcode = ""),
    val fieldErrors: Map<String, String> = emptyMap(),
    val submitting: Boolean = false,
    val placedOrderId: String? = null,
    val errorMessage: String? = null,
)

private val UK_POSTCODE = Regex("^[A-Z]{1,2}\\d[A-Z\\d]? ?\\d[A-Z]{2}$", RegexOption.IGNORE_CASE)

/** Field-level checks done on the device before we call the API. */
fun validateAddress(address: ShippingAddress): Map<String, String> = buildMap {
    if (address.name.isBlank()) put("name", "Enter the recipient's name")
    if (address.line1.isBlank()) put("line1", "Enter the first line of the address")
    if (address.city.isBlank()) put("city", "Enter a town or city")
    if (address.country == "GB" && !UK_POSTCODE.matches(address.postcode.trim())) {
        put("postcode", "Enter a valid UK postcode")
    }
}

class CheckoutViewModel(
    private val orders: OrderRepository,
    private val cartLines: () -> List<CreateOrderRequest.LineRequest>,
) : ViewModel() {
    private val _state = MutableStateFlow(CheckoutUiState())
    val state: StateFlow<CheckoutUiState> = _state

    // One key per checkout screen, reused if the user taps "Place order" again.
    private val idempotencyKey = UUID.randomUUID().toString()

    fun updateAddress(transform: (ShippingAddress) -> ShippingAddress) {
        _state.update { it.copy(address = transform(it.address), fieldErrors = emptyMap()) }
    }

    fun placeOrder(couponCode: String?) {
        val current = _state.value
        val errors = validateAddress(current.address)
        if (errors.isNotEmpty()) {
            _state.update { it.copy(fieldErrors = errors) }
            return
        }
        _state.update { it.copy(submitting = true, errorMessage = null) }
        viewModelScope.launch {
            try {
                val order = orders.placeOrder(
                    CreateOrderRequest(lines = cartLines(), address = current.address, couponCode = couponCode),
                    idempotencyKey,
                )
                _state.update { it.copy(submitting = false, placedOrderId = order.id) }
            } catch (e: HttpException) {
                val message = if (e.code == 422) "Please check your address and basket." else "Could not place your order."
                _state.update { it.copy(submitting = false, errorMessage = message) }
            } catch (e: Exception) {
                _state.update { it.copy(submitting = false, errorMessage = "You appear to be offline. Try again.") }
            }
        }
    }
}
