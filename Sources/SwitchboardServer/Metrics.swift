import MicroHTTPD
import Switchboard
import SystemSupport

/// Request counters and the latency histogram, rendered in the Prometheus text format.
/// One short critical section per request (a few additions).
final class Metrics: Sendable {
    /// The endpoints counted separately.
    enum Endpoint: String, CaseIterable, Sendable {
        case resolve = "/v1/resolve", manifest = "/v1/manifest", healthz = "/healthz", readyz = "/readyz",
             metrics = "/metrics", openapi = "/openapi.json", routes = "/v1/routes", validate = "/v1/validate", events = "/v1/events", explorer = "/",
             other = "other"
    }

    /// `Endpoint.allCases`, built once (reading `allCases` builds an array each time).
    static let endpoints = Endpoint.allCases

    /// Upper bounds of the latency buckets, in seconds.
    static let buckets: [Double] = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05, 0.25, 1]

    static let methods = ["GET", "HEAD", "POST", "other"]
    static let statuses = [200, 304, 400, 404, 405, 408, 413, 414, 431, 500, 503, 0]

    struct Counts: Sendable {
        /// `[endpoint][method][status]` flattened: no allocation per request.
        var requests = [Int](repeating: 0, count: Metrics.endpoints.count * Metrics.methods.count * Metrics.statuses.count)
        var outcomes = OutcomeCounts.none
        var latency = [Int](repeating: 0, count: Metrics.buckets.count + 1)
        var latencySum = 0.0
        var latencyCount = 0
    }

    private let counts = Locked(Counts())

    /// Counts one request and the resolve results it answered. `seconds` nil leaves the
    /// latency histogram alone (a held poll's answer: its wait is the client's choice, not
    /// our latency).
    func record(endpoint: Endpoint, method: String, status: Int, seconds: Double?, outcomes: OutcomeCounts = .none) {
        var bucket = Self.buckets.count
        for (i, bound) in Self.buckets.enumerated() where seconds ?? 0 <= bound {
            bucket = i
            break
        }
        let e = Self.endpoints.firstIndex(of: endpoint) ?? Self.endpoints.count - 1
        let m = Self.methods.firstIndex(of: method) ?? Self.methods.count - 1
        let st = Self.statuses.firstIndex(of: status) ?? Self.statuses.count - 1
        let index = (e * Self.methods.count + m) * Self.statuses.count + st
        counts.withLock { c in
            c.requests[index] += 1
            if let seconds {
                c.latency[bucket] += 1
                c.latencySum += seconds
                c.latencyCount += 1
            }
            c.outcomes.add(outcomes)
        }
    }

    /// The exposition text; manifest figures come from the store, held polls and streams
    /// from its live updates.
    func render(store: ManifestStore.State, live: LiveUpdates.Figures) -> String {
        let c = counts.withLock { $0 }
        var out = ""
        out += "# HELP switchboard_http_requests_total HTTP requests by endpoint, method and status.\n"
        out += "# TYPE switchboard_http_requests_total counter\n"
        for (e, endpoint) in Self.endpoints.enumerated() {
            for (m, method) in Self.methods.enumerated() {
                for (st, status) in Self.statuses.enumerated() {
                    let count = c.requests[(e * Self.methods.count + m) * Self.statuses.count + st]
                    guard count > 0 else { continue }
                    let code = status == 0 ? "other" : String(status)
                    out += "switchboard_http_requests_total{endpoint=\"\(endpoint.rawValue)\",method=\"\(method)\",status=\"\(code)\"} \(count)\n"
                }
            }
        }
        out += "# HELP switchboard_resolve_outcomes_total Resolved URLs by result status.\n"
        out += "# TYPE switchboard_resolve_outcomes_total counter\n"
        for status in Resolution.Status.allCases {
            out += "switchboard_resolve_outcomes_total{status=\"\(status.rawValue)\"} \(c.outcomes[status])\n"
        }
        out += "# HELP switchboard_http_request_duration_seconds Time to handle a request, from complete request to response queued.\n"
        out += "# TYPE switchboard_http_request_duration_seconds histogram\n"
        var cumulative = 0
        for (i, bound) in Self.buckets.enumerated() {
            cumulative += c.latency[i]
            out += "switchboard_http_request_duration_seconds_bucket{le=\"\(bound)\"} \(cumulative)\n"
        }
        cumulative += c.latency[Self.buckets.count]
        out += "switchboard_http_request_duration_seconds_bucket{le=\"+Inf\"} \(cumulative)\n"
        out += "switchboard_http_request_duration_seconds_sum \(c.latencySum)\n"
        out += "switchboard_http_request_duration_seconds_count \(c.latencyCount)\n"
        out += "# HELP switchboard_manifest_version The version of the manifest in service.\n"
        out += "# TYPE switchboard_manifest_version gauge\n"
        out += "switchboard_manifest_version \(store.current.compiled.manifest.version)\n"
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

/// Resolved URLs by result status: what one request answered, and the running totals.
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

    mutating func add(_ other: OutcomeCounts) {
        matched += other.matched
        fallback += other.fallback
        external += other.external
        rejected += other.rejected
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
