import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Switchboard

// The values the client hands out. They are declared inside `SwitchboardClient`, so that
// `SwitchboardClient.ManifestSource` names them although the module has the class's name,
// and also at the top level (the type aliases at the end), so that `ManifestSource` alone
// does. Each has a public initializer, for previews and tests that fake an update.

extension SwitchboardClient {
    /// Where the manifest in use came from.
    public enum ManifestSource: String, Sendable {
        /// The last good manifest the client persisted.
        case cache
        /// The copy the app or backend bundled and passed in.
        case bundle
        /// Fetched from the server in this run.
        case server
    }

    /// A manifest the client resolves with: compiled by the same engine as the server's.
    public struct ManifestInUse: Sendable {
        public let compiled: CompiledManifest
        /// The ETag the server sent with it (its own for a bundled copy): what the next
        /// conditional GET names in `If-None-Match`.
        public let etag: String
        public let source: ManifestSource
        /// The authors' version number (`version` of the manifest).
        public var version: Int64 { compiled.manifest.version }

        public init(compiled: CompiledManifest, etag: String, source: ManifestSource) {
            self.compiled = compiled
            self.etag = etag
            self.source = source
        }
    }

    /// What the client's update sequence announces.
    public enum ClientUpdate: Sendable {
        /// A manifest was put in use: the first one, or a newer one from the server.
        case adopted(ManifestInUse)
        /// An update failed: the manifest in use (if any) stays.
        case failed(ClientFailure)
    }

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

    /// A subscription made by ``SwitchboardClient/onUpdate(_:)``: `cancel()` ends it.
    public final class UpdateSubscription: Sendable {
        private let end: @Sendable () -> Void

        init(_ end: @escaping @Sendable () -> Void) {
            self.end = end
        }

        public func cancel() { end() }
    }
}

public typealias ManifestSource = SwitchboardClient.ManifestSource
public typealias ManifestInUse = SwitchboardClient.ManifestInUse
public typealias ClientUpdate = SwitchboardClient.ClientUpdate
public typealias ClientFailure = SwitchboardClient.ClientFailure
public typealias UpdateSubscription = SwitchboardClient.UpdateSubscription
