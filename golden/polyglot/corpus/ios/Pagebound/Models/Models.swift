import Foundation

/// Amount in minor units (pence) plus ISO currency code, as the API sends it.
struct Money: Codable, Hashable {
    let amountMinor: Int
    let currency: String

    var formatted: String {
        let formatter = NumberFormatter()
        formatter.numberStyle = .currency
        formatter.currencyCode = currency
        return formatter.string(from: NSNumber(value: Double(amountMinor) / 100)) ?? "\(amountMinor)"
    }
}

struct Book: Codable, Identifiable, Hashable {
    let isbn: String
    let title: String
    let authors: [String]
    let coverUrl: URL?
    let priceMinor: Int
    let currency: String
    let stock: Int

    var id: String { isbn }
}

struct CartItem: Codable, Identifiable, Hashable {
    let isbn: String
    var quantity: Int
    let unitPriceMinor: Int

    var id: String { isbn }
    var lineTotalMinor: Int { unitPriceMinor * quantity }
}

struct Cart: Codable {
    var items: [CartItem]
    var couponCode: String?
    var subtotalMinor: Int?
}

enum OrderStatus: String, Codable {
    case pendingPayment = "pending_payment"
    case paid
    case picking
    case shipped
    case delivered
    case cancelled
    case refunded

    var displayName: String {
        switch self {
        case .pendingPayment: return "Awaiting payment"
        case .paid: return "Paid"
        case .picking: return "Being packed"
        case .shipped: return "On its way"
        case .delivered: return "Delivered"
        case .cancelled: return "Cancelled"
        case .refunded: return "Refunded"
        }
    }
}

struct Order: Codable, Identifiable {
    let id: String
    let status: OrderStatus
    let total: Money
    let createdAt: Date
}
