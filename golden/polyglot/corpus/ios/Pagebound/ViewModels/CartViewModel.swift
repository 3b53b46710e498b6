import Combine
import Foundation

/// Drives the basket screen: loads the cart, changes quantities optimistically
/// and rolls back if the API rejects the change.
@MainActor
final class CartViewModel: ObservableObject {
    @Published private(set) var items: [CartItem] = []
    @Published private(set) var isLoading = false
    @Published var errorMessage: String?
    @Published var couponCode: String = ""

    static let freeShippingThresholdMinor = 2500
    static let standardShippingMinor = 399

    private let api: APIClient

    init(api: APIClient) {
        self.api = api
    }

    var subtotalMinor: Int {
        items.reduce(0) { $0 + $1.lineTotalMinor }
    }

    /// Shipping shown in the basket; mirrors the server's free-delivery rule.
    var shippingMinor: Int {
        if items.isEmpty || subtotalMinor >= Self.freeShippingThresholdMinor {
            return 0
        }
        return Self.standardShippingMinor
    }

    var totalMinor: Int { subtotalMinor + shippingMinor }

    func load() async {
        isLoading = true
        defer { isLoading = false }
        do {
            let cart: Cart = try await api.send("cart")
            items = cart.items
            couponCode = cart.couponCode ?? ""
        } catch {
            errorMessage = error.localizedDescription
        }
    }

    /// Updates the quantity locally first so the UI feels instant, then
    /// syncs with the server and restores the previous basket on failure.
    func setQuantity(_ quantity: Int, for isbn: String) async {
        guard let index = items.firstIndex(where: { $0.isbn == isbn }) else { return }
        let previous = items
        if quantity <= 0 {
            items.remove(at: index)
        } else {
            items[index].quantity = min(quantity, 20)
        }
        do {
            if quantity <= 0 {
                let _: Cart = try await api.send("cart/items/\(isbn)", method: "DELETE")
            } else {
                let _: Cart = try await api.send("cart/items", method: "POST",
                                                 body: ["isbn": isbn, "quantity": String(quantity)])
            }
        } catch {
            items = previous
            errorMessage = error.localizedDescription
        }
    }

    func applyCoupon() async {
        let code = couponCode.trimmingCharacters(in: .whitespaces).uppercased()
        guard code.count >= 4 else {
            errorMessage = "Coupon codes are at least 4 characters."
            return
        }
        do {
            let cart: Cart = try await api.send("cart/coupon", method: "POST", body: ["code": code])
            items = cart.items
            couponCode = cart.couponCode ?? code
        } catch {
            errorMessage = error.localizedDescription
        }
    }
}
