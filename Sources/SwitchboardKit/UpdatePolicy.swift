import Foundation
import Switchboard

/// When the client asks the server again: the pure arithmetic of the update loop.
public struct UpdatePolicy: Sendable, Equatable {
    /// Seconds a blocking poll asks the server to hold it (`Prefer: wait=N`); 0 sends no
    /// `Prefer`. 25, the server's `--max-wait` default: with the server's jitter (up to
    /// N/16) it stays under the most impatient proxy in common use (Google's load
    /// balancer, 30 s), so a quiet poll ends in 304 rather than the proxy's 504.
    public var wait: Int
    /// The shortest interval between polls that are not held, whatever `max-age` says.
    public var minimumInterval: Duration
    /// The first retry after a failure waits up to this (full jitter)...
    public var initialBackoff: Duration
    /// ... doubling per failure in a row, up to this.
    public var maximumBackoff: Duration
    /// How long a request that is not held may take (a held one: `wait` plus its jitter
    /// plus this).
    public var requestTimeout: Duration

    public init(wait: Int = 25, minimumInterval: Duration = .seconds(60), initialBackoff: Duration = .seconds(1),
                maximumBackoff: Duration = .seconds(300), requestTimeout: Duration = .seconds(30)) {
        self.wait = min(max(wait, 0), LivePolling.waitRange.upperBound)
        self.minimumInterval = minimumInterval
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
        self.requestTimeout = requestTimeout
    }

    /// The timeout of a request that asks to be held `wait` seconds, past which the
    /// server may add its jitter.
    func timeout(held: Bool) -> Duration {
        held ? .seconds(wait) + LivePolling.maxJitter(wait: wait) + requestTimeout : requestTimeout
    }

    /// Whether a 502 or 504 to a held poll out for `elapsed` is a proxy in front that gave
    /// up waiting before the server answered (its timeout under `wait` and the jitter):
    /// the poll was held that long, so it is asked again, not counted as a failure that
    /// backs off (up to ``maximumBackoff`` of not following). One that came sooner than
    /// half the wait (at most 10 s) is a failure.
    package func proxyGaveUp(status: Int, held: Bool, after elapsed: Duration) -> Bool {
        held && (status == 502 || status == 504) && elapsed >= min(.seconds(wait) / 2, .seconds(10))
    }

    /// The pause before the next conditional GET when the server does not hold polls:
    /// `max-age` (at least ``minimumInterval``) plus up to a tenth of it at random, so
    /// clients that started together drift apart.
    func interval(cacheControl: String?) -> Duration {
        let base = max(Self.maxAge(cacheControl).map { Duration.seconds($0) } ?? minimumInterval, minimumInterval)
        return base + base * Double.random(in: 0...0.1)
    }

    /// Exponential backoff with full jitter (AWS's "full jitter"): anywhere between zero
    /// and `initialBackoff * 2^(failures-1)`, capped at ``maximumBackoff``.
    func backoff(failures: Int) -> Duration {
        let ceiling = min(initialBackoff * Double(1 << min(max(failures - 1, 0), 30)), maximumBackoff)
        return ceiling * Double.random(in: 0...1)
    }

    /// `max-age=N` of a `Cache-Control` value.
    static func maxAge(_ cacheControl: String?) -> Int? {
        guard let cacheControl, let value = HeaderParameters.first("max-age", in: cacheControl) ?? nil,
              let seconds = Int(value), seconds >= 0 else { return nil }
        return seconds
    }

    /// `Retry-After` as a pause from `now`; nil when absent or unreadable
    /// (``LivePolling/retryAfter(_:now:)``).
    static func retryAfter(_ value: String?, now: Date = Date()) -> Duration? {
        LivePolling.retryAfter(value, now: Int64(now.timeIntervalSince1970)).map { .seconds($0) }
    }
}
