/// HTTP dates (RFC 9110 IMF-fixdate): `Sun, 06 Nov 1994 08:49:37 GMT`. The server's
/// `Last-Modified` and `If-Modified-Since`, the client's `Retry-After`.
package enum HTTPDate {
    private static let days = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let monthBytes = months.map { Array($0.utf8) }

    package static func format(_ epoch: Int64) -> String {
        let dayNumber = epoch >= 0 ? epoch / 86_400 : (epoch - 86_399) / 86_400
        let secondOfDay = epoch - dayNumber * 86_400
        let (y, m, d) = RFC3339.civil(fromDays: dayNumber)
        let weekday = days[Int(((dayNumber % 7) + 7) % 7)]
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(weekday), \(two(d)) \(months[Int(m - 1)]) \(y) \(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60)) GMT"
    }

    /// Parses an HTTP-date in any of RFC 9110's three formats (5.6.7): IMF-fixdate
    /// `Sun, 06 Nov 1994 08:49:37 GMT`, RFC 850 `Sunday, 06-Nov-94 08:49:37 GMT` (a
    /// two-digit year below 70 is 20xx) and asctime `Sun Nov  6 08:49:37 1994`; nil for
    /// anything else (RFC 9110 lets a server ignore an If-Modified-Since it cannot
    /// parse). Read at fixed positions on the bytes: pollers send one per request.
    package static func parse(_ text: String) -> Int64? {
        text.withUTF8Span(parse)
    }

    private static func parse(_ b: Span<UInt8>) -> Int64? {
        let day, month, year, time: Int64?
        if b.count == 29, b[3] == UInt8(ascii: ","), b[4] == UInt8(ascii: " "), b[7] == UInt8(ascii: " "),
           b[11] == UInt8(ascii: " "), b[16] == UInt8(ascii: " "), suffixGMT(b, 25) {
            (day, month, year, time) = (number(b, 5, 2), monthNumber(b, 8), number(b, 12, 4), seconds(b, 17))
        } else if b.count == 24, b[3] == UInt8(ascii: " "), b[7] == UInt8(ascii: " "), b[10] == UInt8(ascii: " "),
                  b[19] == UInt8(ascii: " ") {
            let padded = b[8] == UInt8(ascii: " ") ? number(b, 9, 1) : number(b, 8, 2)
            (day, month, year, time) = (padded, monthNumber(b, 4), number(b, 20, 4), seconds(b, 11))
        } else if let comma = (6...9).first(where: { $0 < b.count && b[$0] == UInt8(ascii: ",") }), b.count == comma + 24,
                  b[comma + 1] == UInt8(ascii: " "), b[comma + 4] == UInt8(ascii: "-"), b[comma + 8] == UInt8(ascii: "-"),
                  b[comma + 11] == UInt8(ascii: " "), suffixGMT(b, comma + 20) {
            let yy = number(b, comma + 9, 2)
            (day, month, year, time) = (number(b, comma + 2, 2), monthNumber(b, comma + 5), yy.map { $0 < 70 ? 2000 + $0 : 1900 + $0 },
                                        seconds(b, comma + 12))
        } else {
            return nil
        }
        guard let day, let month, let year, let time, (1...31).contains(day) else { return nil }
        return RFC3339.daysFromCivil(year, month, day) * 86_400 + time
    }

    /// `count` ASCII digits at `at` as a number.
    private static func number(_ b: Span<UInt8>, _ at: Int, _ count: Int) -> Int64? {
        var value: Int64 = 0
        for i in at..<(at + count) {
            let digit = b[i] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value * 10 + Int64(digit)
        }
        return value
    }

    /// `hh:mm:ss` at `at` as seconds of the day (a leap second allowed).
    private static func seconds(_ b: Span<UInt8>, _ at: Int) -> Int64? {
        guard b[at + 2] == UInt8(ascii: ":"), b[at + 5] == UInt8(ascii: ":"), let h = number(b, at, 2), let m = number(b, at + 3, 2),
              let s = number(b, at + 6, 2), h < 24, m < 60, s < 61 else { return nil }
        return h * 3600 + m * 60 + s
    }

    /// The month (1-12) whose name (case-sensitive, RFC 9110) is at `at`.
    private static func monthNumber(_ b: Span<UInt8>, _ at: Int) -> Int64? {
        for (k, n) in monthBytes.enumerated() where b[at] == n[0] && b[at + 1] == n[1] && b[at + 2] == n[2] {
            return Int64(k + 1)
        }
        return nil
    }

    /// Whether ` GMT` ends the text at `at`.
    private static func suffixGMT(_ b: Span<UInt8>, _ at: Int) -> Bool {
        b[at] == UInt8(ascii: " ") && b[at + 1] == UInt8(ascii: "G") && b[at + 2] == UInt8(ascii: "M") && b[at + 3] == UInt8(ascii: "T")
    }
}

extension HTTPDate {
    /// `2026-11-20T10:00:00Z`.
    package static func rfc3339(_ epoch: Int64) -> String {
        let dayNumber = epoch >= 0 ? epoch / 86_400 : (epoch - 86_399) / 86_400
        let secondOfDay = epoch - dayNumber * 86_400
        let (y, m, d) = RFC3339.civil(fromDays: dayNumber)
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(y)-\(two(m))-\(two(d))T\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))Z"
    }
}
