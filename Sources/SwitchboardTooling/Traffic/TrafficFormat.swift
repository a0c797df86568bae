import Switchboard
import RouteMatching

/// What a line of traffic is.
package enum TrafficLine: Sendable, Equatable {
    /// A link someone opened.
    case record(TrafficRecord)
    /// Well formed but no link: a blank line, a comment, an API call that is not a
    /// resolve, a method other than GET and HEAD.
    case skipped
    /// Fits no format: garbage, cut short, binary. Counted and reported by line number.
    case bad(String)
}

extension TrafficLine {
    /// The same line, its record (if any) sent by `client`.
    func from(_ client: String?, agent: String? = nil) -> TrafficLine {
        guard case .record(var record) = self else { return self }
        if let client, !client.isEmpty, client != "-" { record.client = client }
        if let agent, !agent.isEmpty, agent != "-" { record.agent = agent }
        return .record(record)
    }
}

/// The formats `switchboard traffic` reads, detected per file from its first line that
/// fits one.
package enum TrafficFormat: String, Sendable, CaseIterable {
    /// One URL a line; `#` starts a comment line.
    case urls
    /// One JSON object a line: `url`, and optionally `platform`, `idiom`, `appVersion`
    /// and `hits` (a line standing for that many requests). Switchboard's own log
    /// (`serve --access-log`) is read too: a request line's `method` and `target` as an
    /// access log's, its other lines as no links.
    case jsonLines = "json-lines"
    /// nginx's or Apache's access log in the common or combined format: the request
    /// line's target is the URL; a request to Switchboard's own `/v1/resolve` stands for
    /// its `url` parameter, with the context parameters.
    case accessLog = "access-log"
    /// A CloudFront standard log (W3C): `#Version`, `#Fields` naming its tab-separated
    /// columns, a request a line; the URL is the viewer's host, path and query.
    case cloudFront = "cloudfront"
    /// An AWS Application Load Balancer's access log: the quoted request's URL.
    case alb

    /// The format `line` is written in, nil when it fits none (a file's first lines may
    /// be cut short or garbage: its format is that of its first line that fits one).
    package static func detect(_ line: ArraySlice<UInt8>) -> TrafficFormat? {
        let trimmed = TrafficFormat.trim(line)
        if trimmed.first == UInt8(ascii: "{") { return .jsonLines }
        if trimmed.starts(with: "#Version:".utf8) || trimmed.starts(with: "#Fields:".utf8) { return .cloudFront }
        if EdgeLogLine.isALB(trimmed) { return .alb }
        if AccessLogLine(trimmed) != nil { return .accessLog }
        if trimmed.first == UInt8(ascii: "#") || (plainText(trimmed) != nil && looksLikeURL(trimmed)) { return .urls }
        return nil
    }

    /// Reads one line (without its line end). `host`, when given, makes a path-only URL
    /// (`/artist/x`) an http(s) URL of that host, as an access log of a web host implies.
    /// `fields`: a CloudFront file's columns, from its `#Fields:` line.
    package func read(_ line: ArraySlice<UInt8>, host: String? = nil, fields: [String] = EdgeLogLine.cloudFrontFields) -> TrafficLine {
        var agent: ArraySlice<UInt8>?
        return read(line, host: host, fields: fields, agent: &agent)
    }

    /// `agent` is set to an access log line's user agent, as the line's bytes: a reader
    /// judges it by them, making a string only of an agent it has not met.
    package func read(_ line: ArraySlice<UInt8>, host: String? = nil, fields: [String] = EdgeLogLine.cloudFrontFields,
                      agent: inout ArraySlice<UInt8>?) -> TrafficLine {
        // CloudFront's columns are tabs: an empty last column is a field, not blank space.
        let line = self == .cloudFront ? line.prefix { $0 != UInt8(ascii: "\r") } : Self.trim(line)
        if line.isEmpty { return .skipped }
        switch self {
        case .urls:
            if line.first == UInt8(ascii: "#") { return .skipped }
            guard let text = Self.plainText(line) else { return .bad("not a URL: control characters, whitespace or bytes that are not UTF-8") }
            // A CSV or TSV export is no URL list: its lines are not read as URLs.
            guard Self.looksLikeURL(line) else { return .bad("not a URL: neither a path (/...) nor a scheme (https:, artsy:)") }
            return .record(TrafficRecord(url: Self.onHost(text, host)))
        case .jsonLines:
            return Self.readJSON(line, host: host)
        case .accessLog:
            guard let entry = AccessLogLine(line) else { return .bad("not an access log line in the common or combined format") }
            agent = entry.agent
            return entry.traffic(host: host).from(entry.remote)
        case .cloudFront:
            return EdgeLogLine.cloudFront(line, fields: fields)
        case .alb:
            return EdgeLogLine.alb(line)
        }
    }

    static func readJSON(_ line: ArraySlice<UInt8>, host: String?) -> TrafficLine {
        guard let value = try? JSONParser.parse(Array(line)), value.objectMembers != nil else {
            return .bad("not a JSON object")
        }
        guard let url = value["url"]?.stringValue else {
            // Switchboard's own access log (`serve --access-log`): a request's target, read
            // as an access log's; its other lines (start, reloads) are no links.
            // A request the server refused before any endpoint saw it is no link.
            if value["message"]?.stringValue == "refused" { return .skipped }
            if let target = value["target"]?.stringValue {
                return AccessLogLine(method: value["method"]?.stringValue ?? "GET", target: target).traffic(host: host)
                    .from(value["client"]?.stringValue)
            }
            if value["message"]?.stringValue != nil { return .skipped }
            return .bad("no \"url\" string")
        }
        var context = ResolveContext()
        for field in ResolveContext.Field.allCases {
            guard let member = value[field.rawValue], member != .null else { continue }
            guard let text = member.stringValue else { return .bad("\"\(field.rawValue)\" is not a string") }
            do { try context.set(field, text) } catch { return .bad(error.description) }
        }
        var hits = 1
        if let member = value["hits"] {
            // A count, or a count in a string (ClickHouse's and BigQuery's exports quote 64-bit integers).
            let n: Int64? = switch member {
            case .integer(let n): n
            case .string(let text): Int64(text)
            default: nil
            }
            guard let n, n >= 1, n <= Int64(Int32.max) else { return .bad("\"hits\" is not a count >= 1") }
            hits = Int(n)
        }
        let agent = (value["userAgent"] ?? value["user_agent"])?.stringValue
        return .record(TrafficRecord(url: onHost(url, host), context: context, hits: hits, client: value["client"]?.stringValue, agent: agent))
    }

    /// The line as text when it is one token of UTF-8 with no control character.
    static func plainText(_ bytes: ArraySlice<UInt8>) -> String? {
        for b in bytes where b <= 0x20 || b == 0x7F { return nil }
        return UTF8Validation.string(bytes)
    }

    /// A path (`/artist/x`) or a URL with a scheme (`https://...`, `artsy:...`).
    static func looksLikeURL(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard let first = bytes.first else { return false }
        if first == UInt8(ascii: "/") { return true }
        func letter(_ b: UInt8) -> Bool { (b | 0x20) >= UInt8(ascii: "a") && (b | 0x20) <= UInt8(ascii: "z") }
        guard letter(first), let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return false }
        return bytes[bytes.startIndex..<colon].allSatisfy {
            letter($0) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".")
        }
    }

    static func onHost(_ url: String, _ host: String?) -> String {
        guard let host, url.utf8.first == UInt8(ascii: "/") else { return url }
        // `//artist/x` in a log is a path (a request target never holds an authority):
        // read with one slash, not as a URL of a host named `artist`.
        var path = Substring(url)
        while path.hasPrefix("//") { path = path.dropFirst() }
        return "https://" + host + path
    }

    static func trim(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var line = line
        while let last = line.last, last == UInt8(ascii: "\r") || last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { line.removeLast() }
        while let first = line.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") { line.removeFirst() }
        return line
    }
}
