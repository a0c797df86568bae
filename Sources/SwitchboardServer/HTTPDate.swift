import Switchboard

/// HTTP dates (RFC 9110 IMF-fixdate): `Sun, 06 Nov 1994 08:49:37 GMT`.
enum HTTPDate {
    private static let days = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func format(_ epoch: Int64) -> String {
        let dayNumber = epoch >= 0 ? epoch / 86_400 : (epoch - 86_399) / 86_400
        let secondOfDay = epoch - dayNumber * 86_400
        let (y, m, d) = RFC3339.civil(fromDays: dayNumber)
        let weekday = days[Int(((dayNumber % 7) + 7) % 7)]
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(weekday), \(two(d)) \(months[Int(m - 1)]) \(y) \(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60)) GMT"
    }

    /// Parses an IMF-fixdate; nil for anything else (RFC 9110 lets a server ignore
    /// an If-Modified-Since it cannot parse).
    static func parse(_ text: String) -> Int64? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[5] == "GMT", let day = Int64(parts[1]), let year = Int64(parts[3]),
              let monthIndex = months.firstIndex(of: String(parts[2])) else { return nil }
        let time = parts[4].split(separator: ":")
        guard time.count == 3, let h = Int64(time[0]), let mi = Int64(time[1]), let s = Int64(time[2]),
              (1...31).contains(day), h < 24, mi < 60, s < 61 else { return nil }
        return RFC3339.daysFromCivil(year, Int64(monthIndex + 1), day) * 86_400 + h * 3600 + mi * 60 + s
    }
}

extension HTTPDate {
    /// `2026-11-20T10:00:00Z`.
    static func rfc3339(_ epoch: Int64) -> String {
        let dayNumber = epoch >= 0 ? epoch / 86_400 : (epoch - 86_399) / 86_400
        let secondOfDay = epoch - dayNumber * 86_400
        let (y, m, d) = RFC3339.civil(fromDays: dayNumber)
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(y)-\(two(m))-\(two(d))T\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))Z"
    }
}
