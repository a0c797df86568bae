import Foundation

/// When the client asks the server again: the pure arithmetic of the update loop.
public struct UpdatePolicy: Sendable, Equatable {
    /// Seconds a blocking poll asks the server to hold it (`Prefer: wait=N`); 0 sends no
    /// `Prefer`. Below the 60 s idle timeout of common load balancers and proxies
    /// (nginx, AWS ALB) with the server's jitter (up to N/16) added.
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

    public init(wait: Int = 50, minimumInterval: Duration = .seconds(60), initialBackoff: Duration = .seconds(1),
                maximumBackoff: Duration = .seconds(300), requestTimeout: Duration = .seconds(30)) {
        self.wait = min(max(wait, 0), 300)
        self.minimumInterval = minimumInterval
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
        self.requestTimeout = requestTimeout
    }

    /// The timeout of a request that asks to be held `wait` seconds: the server adds up to
    /// wait/16.
    func timeout(held: Bool) -> Duration {
        held ? .seconds(wait + (wait + 15) / 16) + requestTimeout : requestTimeout
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
        guard let cacheControl else { return nil }
        for directive in cacheControl.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2, parts[0].lowercased() == "max-age", let seconds = Int(parts[1].trimmingCharacters(in: ["\""])),
               seconds >= 0 {
                return seconds
            }
        }
        return nil
    }

    /// `Retry-After` as a pause from `now`: delta-seconds or an HTTP date (RFC 9110 §10.2.3);
    /// nil when absent or unreadable. At most a day: a typo must not silence a client for
    /// longer.
    static func retryAfter(_ value: String?, now: Date = Date()) -> Duration? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        let seconds: Double
        if let delta = Int(value) {
            guard delta >= 0 else { return nil }
            seconds = Double(delta)
        } else if let date = httpDate(value) {
            seconds = max(date.timeIntervalSince(now), 0)
        } else {
            return nil
        }
        return .milliseconds(Int64(min(seconds, 86_400) * 1000))
    }

    /// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`).
    private static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.date(from: text)
    }

    /// Whether `Preference-Applied` says the server held the poll.
    static func appliedWait(_ preferenceApplied: String?) -> Bool {
        guard let preferenceApplied else { return false }
        return preferenceApplied.split(separator: ",").contains {
            $0.trimmingCharacters(in: .whitespaces).lowercased().hasPrefix("wait=")
        }
    }
}
