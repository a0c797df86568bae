import MicroHTTPD
import Switchboard
import Synchronization

/// Request counters and the latency histogram, rendered in the Prometheus text format.
/// Each a relaxed atomic, as Prometheus client libraries keep them: a request adds to
/// three or four of them and takes no lock that every thread would queue on. A scrape
/// reads them one by one, so it may see a request in one counter and not yet in another.
final class Metrics: Sendable {
    /// The endpoints counted separately.
    enum Endpoint: Int, CaseIterable, Sendable {
        case resolve, manifest, healthz, readyz, metrics, openapi, routes, validate, events, explorer, appleAppSiteAssociation,
             assetLinks, other

        /// The label written for it.
        var label: String {
            switch self {
            case .resolve: "/v1/resolve"
            case .manifest: "/v1/manifest"
            case .healthz: "/healthz"
            case .readyz: "/readyz"
            case .metrics: "/metrics"
            case .openapi: "/openapi.json"
            case .routes: "/v1/routes"
            case .validate: "/v1/validate"
            case .events: "/v1/events"
            case .explorer: "/"
            case .appleAppSiteAssociation: "/.well-known/apple-app-site-association"
            case .assetLinks: "/.well-known/assetlinks.json"
            case .other: "other"
            }
        }
    }

    /// Upper bounds of the latency buckets, in seconds.
    static let buckets: [Double] = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05, 0.25, 1]

    /// In ``HTTPMethod`` order: a request's method is counted by its raw value.
    static let methods = HTTPMethod.allCases.map { $0.name ?? "other" }
    static let statuses = [200, 304, 400, 404, 405, 408, 413, 414, 415, 429, 431, 500, 503, 505, 0]
    /// `Resolution.Status.allCases`, built once (reading `allCases` builds an array).
    static let outcomeStatuses = Resolution.Status.allCases
    /// The buckets' bounds in nanoseconds, as requests are timed.
    static let bucketNanoseconds = buckets.map { UInt64(($0 * 1e9).rounded()) }

    /// `[endpoint][method][status]` flattened (11 × 4 × 15, checked in `init`).
    private let requests: InlineArray<780, Atomic<Int>>
    /// Resolved URLs by ``Resolution/Status`` (in `allCases` order).
    private let outcomes: InlineArray<4, Atomic<Int>>
    /// The latency histogram's buckets (the last one above every bound), the number of
    /// requests timed and their total in nanoseconds.
    private let latency: InlineArray<12, Atomic<Int>>
    private let latencyCount = Atomic<Int>(0)
    private let latencyNanoseconds = Atomic<Int>(0)
    /// Requests a trusted proxy forwarded, its header naming their client.
    private let forwarded = Atomic<Int>(0)
    /// Refusals for a share taken, by ``Share``.
    private let shareRefusals: InlineArray<8, Atomic<Int>>
    /// The daemon's refusals, by ``Refusal/Reason`` (in `allCases` order).
    private let refusals: InlineArray<13, Atomic<Int>>

    /// What a client or the server had taken all of when a request was refused; or, with
    /// `holder="largest"`, a place the block holding the most gave back to a block below
    /// its fair share (its newest held poll answered or stream ended; its newest queued
    /// expensive request answered 503).
    enum Share: Int, CaseIterable, Sendable {
        /// A client block's connections, cut at accept; every connection, none to give way.
        case clientConnections, serverConnections
        /// A client block's held polls and streams; the server's; the largest holder's.
        case clientLive, serverLive, largestLive
        /// A client block's expensive requests; the server's; the largest holder's.
        case clientExpensive, serverExpensive, largestExpensive

        var labels: String {
            switch self {
            case .clientConnections: #"share="connections",holder="client""#
            case .serverConnections: #"share="connections",holder="server""#
            case .clientLive: #"share="live",holder="client""#
            case .serverLive: #"share="live",holder="server""#
            case .largestLive: #"share="live",holder="largest""#
            case .clientExpensive: #"share="expensive",holder="client""#
            case .serverExpensive: #"share="expensive",holder="server""#
            case .largestExpensive: #"share="expensive",holder="largest""#
            }
        }
    }

    init() {
        requests = InlineArray { _ in Atomic(0) }
        outcomes = InlineArray { _ in Atomic(0) }
        latency = InlineArray { _ in Atomic(0) }
        shareRefusals = InlineArray { _ in Atomic(0) }
        refusals = InlineArray { _ in Atomic(0) }
        precondition(refusals.count == Refusal.Reason.allCases.count)
        precondition(requests.count == Endpoint.allCases.count * Self.methods.count * Self.statuses.count
                        && shareRefusals.count == Share.allCases.count
                        && outcomes.count == Resolution.Status.allCases.count && latency.count == Self.buckets.count + 1)
    }

    /// Counts one request and the resolve results it answered. `nanoseconds` nil leaves
    /// the latency histogram alone (a held poll's answer: its wait is the client's
    /// choice, not our latency).
    func record(endpoint: Endpoint, method: HTTPMethod, status: Int, nanoseconds: UInt64?, outcomes counted: OutcomeCounts = .none) {
        let m = method.rawValue
        let st = Self.statuses.firstIndex(of: status) ?? Self.statuses.count - 1
        requests[(endpoint.rawValue * Self.methods.count + m) * Self.statuses.count + st].wrappingAdd(1, ordering: .relaxed)
        if let nanoseconds {
            let bucket = Self.bucketNanoseconds.firstIndex { nanoseconds <= $0 } ?? Self.buckets.count
            latency[bucket].wrappingAdd(1, ordering: .relaxed)
            latencyCount.wrappingAdd(1, ordering: .relaxed)
            latencyNanoseconds.wrappingAdd(Int(truncatingIfNeeded: nanoseconds), ordering: .relaxed)
        }
        for (i, status) in Self.outcomeStatuses.enumerated() where counted[status] > 0 {
            outcomes[i].wrappingAdd(counted[status], ordering: .relaxed)
        }
    }

    /// Counts a request a trusted proxy forwarded (``HTTPRequest/proxy``).
    func recordForwarded() { forwarded.wrappingAdd(1, ordering: .relaxed) }

    /// Counts a refusal for a share taken.
    func recordShareRefusal(_ share: Share) { shareRefusals[share.rawValue].wrappingAdd(1, ordering: .relaxed) }

    /// Counts a request the daemon refused or a connection it cut.
    func recordRefusal(_ reason: Refusal.Reason) {
        guard let i = Refusal.Reason.allCases.firstIndex(of: reason) else { return }
        refusals[i].wrappingAdd(1, ordering: .relaxed)
    }

    /// The exposition text; manifest figures come from the store, held polls and streams
    /// from its live updates.
    func render(store: LiveUpdates.Service, live: LiveUpdates.Figures) -> String {
        var out = ""
        out += "# HELP switchboard_http_requests_total HTTP requests by endpoint, method and status.\n"
        out += "# TYPE switchboard_http_requests_total counter\n"
        for endpoint in Endpoint.allCases {
            for (m, method) in Self.methods.enumerated() {
                for (st, status) in Self.statuses.enumerated() {
                    let count = requests[(endpoint.rawValue * Self.methods.count + m) * Self.statuses.count + st].load(ordering: .relaxed)
                    guard count > 0 else { continue }
                    let code = status == 0 ? "other" : String(status)
                    out += "switchboard_http_requests_total{endpoint=\"\(endpoint.label)\",method=\"\(method)\",status=\"\(code)\"} \(count)\n"
                }
            }
        }
        out += "# HELP switchboard_resolve_outcomes_total Resolved URLs by result status.\n"
        out += "# TYPE switchboard_resolve_outcomes_total counter\n"
        for (i, status) in Self.outcomeStatuses.enumerated() {
            out += "switchboard_resolve_outcomes_total{status=\"\(status.rawValue)\"} \(outcomes[i].load(ordering: .relaxed))\n"
        }
        out += "# HELP switchboard_http_request_duration_seconds Time to handle a request, from complete request to response queued.\n"
        out += "# TYPE switchboard_http_request_duration_seconds histogram\n"
        var cumulative = 0
        for (i, bound) in Self.buckets.enumerated() {
            cumulative += latency[i].load(ordering: .relaxed)
            out += "switchboard_http_request_duration_seconds_bucket{le=\"\(bound)\"} \(cumulative)\n"
        }
        cumulative += latency[Self.buckets.count].load(ordering: .relaxed)
        out += "switchboard_http_request_duration_seconds_bucket{le=\"+Inf\"} \(cumulative)\n"
        out += "switchboard_http_request_duration_seconds_sum \(Double(latencyNanoseconds.load(ordering: .relaxed)) / 1e9)\n"
        out += "switchboard_http_request_duration_seconds_count \(latencyCount.load(ordering: .relaxed))\n"
        out += "# HELP switchboard_forwarded_requests_total Requests whose client a trusted proxy named in its forwarded header (serve --trusted-proxy, --forwarded-header).\n"
        out += "# TYPE switchboard_forwarded_requests_total counter\n"
        out += "switchboard_forwarded_requests_total \(forwarded.load(ordering: .relaxed))\n"
        out += "# HELP switchboard_share_refusals_total Requests and connections refused because a client block (holder=client) or the server took all of a share.\n"
        out += "# TYPE switchboard_share_refusals_total counter\n"
        for share in Share.allCases {
            out += "switchboard_share_refusals_total{\(share.labels)} \(shareRefusals[share.rawValue].load(ordering: .relaxed))\n"
        }
        out += "# HELP switchboard_refusals_total Requests refused, and connections cut, before any endpoint saw them, by reason.\n"
        out += "# TYPE switchboard_refusals_total counter\n"
        for (i, reason) in Refusal.Reason.allCases.enumerated() {
            out += "switchboard_refusals_total{reason=\"\(reason.rawValue)\"} \(refusals[i].load(ordering: .relaxed))\n"
        }
        out += "# HELP switchboard_manifest_version The version of the manifest in service.\n"
        out += "# TYPE switchboard_manifest_version gauge\n"
        out += "switchboard_manifest_version \(store.current.compiled.manifest.version)\n"
        store.current.routeHits.render(into: &out)
        out += "# HELP switchboard_manifest_routes Routes in the manifest in service.\n"
        out += "# TYPE switchboard_manifest_routes gauge\n"
        out += "switchboard_manifest_routes \(store.current.compiled.manifest.routes.count)\n"
        out += "# HELP switchboard_manifest_reloads_total Manifests reloaded and put in service.\n"
        out += "# TYPE switchboard_manifest_reloads_total counter\n"
        out += "switchboard_manifest_reloads_total \(store.reloads)\n"
        out += "# HELP switchboard_manifest_reload_failures_total Reloads refused (invalid or unreadable manifest).\n"
        out += "# TYPE switchboard_manifest_reload_failures_total counter\n"
        out += "switchboard_manifest_reload_failures_total \(store.reloadFailures)\n"
        out += "# HELP switchboard_held_polls Conditional GETs held until the manifest changes (Prefer: wait).\n"
        out += "# TYPE switchboard_held_polls gauge\n"
        out += "switchboard_held_polls \(live.heldPolls)\n"
        out += "# HELP switchboard_event_streams Open /v1/events streams.\n"
        out += "# TYPE switchboard_event_streams gauge\n"
        out += "switchboard_event_streams \(live.streams)\n"
        out += "# HELP switchboard_wakeup_seconds Held polls answered by a new manifest: from the swap to the answer queued.\n"
        out += "# TYPE switchboard_wakeup_seconds histogram\n"
        var woken = 0
        for (i, bound) in LiveUpdates.wakeupBuckets.enumerated() {
            woken += live.wakeups[i]
            out += "switchboard_wakeup_seconds_bucket{le=\"\(bound)\"} \(woken)\n"
        }
        woken += live.wakeups[LiveUpdates.wakeupBuckets.count]
        out += "switchboard_wakeup_seconds_bucket{le=\"+Inf\"} \(woken)\n"
        out += "switchboard_wakeup_seconds_sum \(live.wakeupSeconds)\n"
        out += "switchboard_wakeup_seconds_count \(woken)\n"
        return out
    }
}

/// Resolved URLs by result status: what one request answered.
struct OutcomeCounts: Sendable {
    static let none = OutcomeCounts()

    private var matched = 0, fallback = 0, external = 0, rejected = 0

    /// Counts one result.
    mutating func count(_ status: Resolution.Status) {
        switch status {
        case .matched: matched += 1
        case .fallback: fallback += 1
        case .external: external += 1
        case .rejected: rejected += 1
        }
    }

    subscript(status: Resolution.Status) -> Int {
        switch status {
        case .matched: return matched
        case .fallback: return fallback
        case .external: return external
        case .rejected: return rejected
        }
    }
}
