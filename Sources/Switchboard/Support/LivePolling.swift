/// What the server and its clients agree on about held polls (docs/http-api.md): how long one may
/// be held, how far past its wait it may be answered, and how the headers that ask for
/// it and answer it read.
package enum LivePolling {
    /// Seconds a held poll may ask for (`Prefer: wait=N`); more is read as the maximum.
    package static let waitRange = 1...300

    /// The most a held poll's answer may come after its wait, at random: wait/16, so that
    /// the polls of clients that started together drift apart.
    package static func maxJitter(wait: Int) -> Duration { .milliseconds(wait * 1000 / 16) }

    /// `Prefer: wait=N` (RFC 7240): the seconds asked for, capped at 300; nil when the
    /// header asks for no wait (absent, `wait=0`, not a number), which is then ignored as
    /// RFC 7240 says of preferences a server does not apply.
    package static func preferredWait(_ header: String?) -> Int? {
        guard let header, let found = HeaderParameters.first("wait", in: header) else { return nil }
        guard let value = found, !value.isEmpty, value.allSatisfy({ $0 >= "0" && $0 <= "9" }) else { return nil }
        let digits = value.drop { $0 == "0" }
        guard !digits.isEmpty else { return nil }
        return digits.count > 3 ? waitRange.upperBound : min(Int(digits) ?? 0, waitRange.upperBound)
    }

    /// Whether `Preference-Applied` says the server held the poll.
    package static func appliedWait(_ preferenceApplied: String?) -> Bool {
        preferenceApplied.flatMap { HeaderParameters.first("wait", in: $0) } != nil
    }

    /// `Retry-After` (RFC 9110 §10.2.3), delta-seconds or an HTTP date, as seconds from
    /// `now` (seconds since 1970); nil when absent or unreadable. At most a day: a typo
    /// must not silence a client for longer.
    package static func retryAfter(_ value: String?, now: Int64) -> Int64? {
        guard let value = value.map({ HeaderParameters.trimmed($0[...]) }), !value.isEmpty else { return nil }
        if value.allSatisfy({ $0 >= "0" && $0 <= "9" }) { return min(Int64(value.prefix(6)) ?? 0, 86_400) }
        guard let date = HTTPDate.parse(String(value)) else { return nil }
        return min(max(date - now, 0), 86_400)
    }
}

/// The comma-separated parameters of a header that lists `name` or `name=value` items
/// (`Prefer`, `Preference-Applied`, `Cache-Control`): names compared case-insensitively,
/// a quoted value unquoted, an item's `;` parameters ignored.
package enum HeaderParameters {
    /// The value of the first item named `name`: nil when there is none, `.some(nil)` when
    /// it has no value.
    package static func first(_ name: String, in header: String) -> Substring?? {
        for item in header.split(separator: ",") {
            let token = item.prefix { $0 != ";" }
            let parts = token.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let key = parts.first, trimmed(key).lowercased() == name else { continue }
            guard parts.count == 2 else { return .some(nil) }
            var value = trimmed(parts[1])
            if value.count >= 2, value.first == "\"", value.last == "\"" { value = value.dropFirst().dropLast() }
            return .some(value)
        }
        return nil
    }

    /// Without the spaces and tabs around it.
    package static func trimmed(_ text: Substring) -> Substring {
        var s = text
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" { s.removeLast() }
        return s
    }
}
