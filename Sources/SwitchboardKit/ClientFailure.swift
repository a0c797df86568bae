import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Switchboard

/// Why an update failed. The client goes on with the manifest it has and tries again.
public struct ClientFailure: Error, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// The request did not get an answer (connection refused, reset, a body cut short).
        case unreachable
        /// No complete answer within the request's timeout (a body that stalls).
        case timeout
        /// A status other than 200 and 304 (a 429 or 503 with `retryAfter`).
        case status
        /// A 200 that is not `application/json`.
        case contentType
        /// A body whose SHA-256 is not the one its ETag names (cut short or altered).
        case integrity
        /// A manifest that does not compile (`switchboard check` would fail): never used.
        case invalidManifest
        /// The cache file could not be read or was damaged; or a bundled copy is invalid.
        case bootstrap
        /// The manifest could not be written to the cache file (it is used all the same).
        case persist
    }

    public let kind: Kind
    public let message: String
    /// The HTTP status, for `.status`.
    public let status: Int?
    /// How long the server asked the client to wait (`Retry-After` on 429 and 503).
    public let retryAfter: Duration?
    /// The transport's `URLError` code, for `.unreachable` and `.timeout` from URLSession
    /// (`.notConnectedToInternet`, `.timedOut`, `.cannotFindHost`, ...).
    public let urlErrorCode: URLError.Code?

    public init(_ kind: Kind, _ message: String, status: Int? = nil, retryAfter: Duration? = nil, urlErrorCode: URLError.Code? = nil) {
        self.kind = kind
        self.message = message
        self.status = status
        self.retryAfter = retryAfter
        self.urlErrorCode = urlErrorCode
    }

    public var description: String { "\(kind.rawValue): \(message)" }
}
