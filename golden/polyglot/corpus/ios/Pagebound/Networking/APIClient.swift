import Foundation

enum APIError: Error, LocalizedError {
    case unauthorized
    case validation(fields: [String: String])
    case server(status: Int)
    case transport(Error)
    case decoding(Error)

    var errorDescription: String? {
        switch self {
        case .unauthorized: return "Please sign in again."
        case .validation(let fields): return fields.values.first ?? "Please check your details."
        case .server(let status): return "Something went wrong (\(status)). Please try again."
        case .transport: return "You appear to be offline."
        case .decoding: return "We couldn't read the server's response."
        }
    }
}

/// Minimal async/await client for the Pagebound API used by the iOS app.
final class APIClient {
    private let baseURL: URL
    private let session: URLSession
    private let tokenStore: TokenStore
    private let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()

    init(baseURL: URL, session: URLSession = .shared, tokenStore: TokenStore) {
        self.baseURL = baseURL
        self.session = session
        self.tokenStore = tokenStore
    }

    /// Sends a request and decodes the JSON response. GET requests that fail
    /// with a transport error or 5xx are retried up to twice with backoff.
    func send<Response: Decodable>(_ path: String, method: String = "GET", body: Encodable? = nil,
                                   headers: [String: String] = [:]) async throws -> Response {
        var request = URLRequest(url: baseURL.appendingPathComponent(path))
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let token = tokenStore.accessToken {
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        }
        for (name, value) in headers {
            request.setValue(value, forHTTPHeaderField: name)
        }
        if let body = body {
            request.httpBody = try JSONEncoder().encode(body)
        }

        let maxAttempts = method == "GET" ? 3 : 1
        var attempt = 0
        while true {
            attempt += 1
            do {
                let (data, response) = try await session.data(for: request)
                let status = (response as? HTTPURLResponse)?.statusCode ?? 0
                switch status {
                case 200..<300:
                    do {
                        return try decoder.decode(Response.self, from: data)
                    } catch {
                        throw APIError.decoding(error)
                    }
                case 401:
                    tokenStore.clear()
                    throw APIError.unauthorized
                case 422:
                    let body = try? JSONDecoder().decode(ValidationBody.self, from: data)
                    throw APIError.validation(fields: body?.details?.fields ?? [:])
                case 500...:
                    if attempt < maxAttempts {
                        try await Task.sleep(nanoseconds: UInt64(attempt) * 400_000_000)
                        continue
                    }
                    throw APIError.server(status: status)
                default:
                    throw APIError.server(status: status)
                }
            } catch let error as URLError {
                if attempt < maxAttempts {
                    try await Task.sleep(nanoseconds: UInt64(attempt) * 400_000_000)
                    continue
                }
                throw APIError.transport(error)
            }
        }
    }

    private struct ValidationBody: Decodable {
        struct Details: Decodable {
            let fields: [String: String]?
        }
        let details: Details?
    }
}

/// Keeps the JWT in the keychain-backed store.
protocol TokenStore: AnyObject {
    var accessToken: String? { get }
    func clear()
}
