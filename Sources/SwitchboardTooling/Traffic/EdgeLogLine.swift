import Switchboard
import RouteMatching

/// A request line of the logs that edges in front of an app's links write: a CloudFront
/// standard log (W3C, tab-separated, its columns named by its `#Fields:` line) and an AWS
/// Application Load Balancer's access log (space-separated, quoted request and agent).
/// What is read: the method, the URL as the user opened it, the client and the user agent.
enum EdgeLogLine {
    /// The columns of a CloudFront standard log when its file has no `#Fields:` line.
    static let cloudFrontFields = ["date", "time", "x-edge-location", "sc-bytes", "c-ip", "cs-method", "cs(Host)", "cs-uri-stem",
                                   "sc-status", "cs(Referer)", "cs(User-Agent)", "cs-uri-query", "cs(Cookie)", "x-edge-result-type",
                                   "x-edge-request-id", "x-host-header", "cs-protocol", "cs-bytes", "time-taken", "x-forwarded-for",
                                   "ssl-protocol", "ssl-cipher", "x-edge-response-result-type", "cs-protocol-version", "fle-status",
                                   "fle-encrypted-fields", "c-port", "time-to-first-byte", "x-edge-detailed-result-type",
                                   "sc-content-type", "sc-content-len", "sc-range-start", "sc-range-end"]

    /// The column names of a `#Fields:` line, nil for any other line.
    static func fields(_ line: ArraySlice<UInt8>) -> [String]? {
        guard line.starts(with: "#Fields:".utf8) else { return nil }
        return String(decoding: line.dropFirst(8), as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
    }

    /// A CloudFront line: `https://` + the Host the viewer asked for (`x-host-header`, else
    /// the distribution's `cs(Host)`) + the path and query as logged (percent-encoded).
    static func cloudFront(_ line: ArraySlice<UInt8>, fields: [String]) -> TrafficLine {
        if line.first == UInt8(ascii: "#") { return .skipped }
        let values = line.split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false)
        func value(_ name: String) -> String? {
            guard let i = fields.firstIndex(of: name), i < values.count else { return nil }
            let text = UTF8Validation.string(values[i])
            return text == "-" ? nil : text
        }
        guard values.count >= min(fields.count, 12), let method = value("cs-method"), let stem = value("cs-uri-stem"),
              let host = value("x-host-header") ?? value("cs(Host)") else {
            return .bad("not a CloudFront log line: fewer columns than its #Fields names, or no method, path or host")
        }
        guard method == "GET" || method == "HEAD" else { return .skipped }
        let scheme = value("cs-protocol") == "http" ? "http" : "https"
        var url = scheme + "://" + host + stem
        if let query = value("cs-uri-query") { url += "?" + query }
        // The agent is logged percent-encoded (`Mozilla/5.0%20(iPhone...)`).
        let agent = value("cs(User-Agent)").map { PercentDecoding.decode(Array($0.utf8), 0..<$0.utf8.count, plusAsSpace: false) ?? $0 }
        return .record(TrafficRecord(url: url, client: value("c-ip"), agent: agent))
    }

    /// Whether `line` starts as an ALB access log line does: a request type, then an ISO 8601 time.
    static func isALB(_ line: ArraySlice<UInt8>) -> Bool {
        let words = line.prefix(64).split(separator: UInt8(ascii: " "), maxSplits: 2, omittingEmptySubsequences: false)
        guard words.count >= 2, ["http", "https", "h2", "grpcs", "ws", "wss"].contains(String(decoding: words[0], as: UTF8.self)) else { return false }
        let time = Array(words[1])
        return time.count >= 11 && time[4] == UInt8(ascii: "-") && time[7] == UInt8(ascii: "-") && time[10] == UInt8(ascii: "T")
    }

    /// An ALB line: the quoted request (`"GET https://host:443/path?query HTTP/1.1"`) is
    /// the method and the URL; the quoted agent follows it.
    static func alb(_ line: ArraySlice<UInt8>) -> TrafficLine {
        let fields = quotedFields(line)
        // type time elb client:port target:port 3 times 2 statuses 2 byte counts "request" "agent"
        guard fields.count >= 14, isALB(line) else { return .bad("not an ALB access log line: fewer fields than an ALB writes") }
        let request = fields[12].split(separator: " ", omittingEmptySubsequences: true)
        guard request.count >= 2 else { return .skipped }
        guard request[0] == "GET" || request[0] == "HEAD" else { return .skipped }
        let client = fields[3].split(separator: ":").dropLast().joined(separator: ":")
        return .record(TrafficRecord(url: String(request[1]), client: client.isEmpty ? nil : client,
                                     agent: fields[13] == "-" ? nil : fields[13]))
    }

    /// Space-separated fields, a `"..."` field as one (its `\"` read as `"`).
    static func quotedFields(_ line: ArraySlice<UInt8>) -> [String] {
        var fields: [String] = []
        var i = line.startIndex
        while i < line.endIndex {
            while i < line.endIndex, line[i] == UInt8(ascii: " ") { i += 1 }
            guard i < line.endIndex else { break }
            var field: [UInt8] = []
            if line[i] == UInt8(ascii: "\"") {
                i += 1
                while i < line.endIndex, line[i] != UInt8(ascii: "\"") {
                    if line[i] == UInt8(ascii: "\\"), i + 1 < line.endIndex { i += 1 }
                    field.append(line[i])
                    i += 1
                }
                i += 1
            } else {
                while i < line.endIndex, line[i] != UInt8(ascii: " ") {
                    field.append(line[i])
                    i += 1
                }
            }
            fields.append(String(decoding: field, as: UTF8.self))
        }
        return fields
    }
}
