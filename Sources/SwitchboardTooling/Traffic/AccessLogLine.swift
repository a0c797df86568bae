import Switchboard
import RouteMatching

/// A line of an nginx or Apache access log in the common or combined format:
/// `remote ident user [time] "METHOD target PROTOCOL" status bytes ["referer" "agent"]`.
/// Only the request line and the status are read; what follows the bytes is not needed.
struct AccessLogLine {
    let method: ArraySlice<UInt8>
    /// The request target, with the log's escapes (`\xHH` from nginx, `\"` and `\\` from
    /// Apache) undone.
    let target: [UInt8]
    /// The line's first field: the client's address (or the proxy's, where the server
    /// logs its peer); nil for a JSON log line, which names its client itself.
    let remote: String?
    /// The combined format's last field, the user agent (the line's own bytes: read for
    /// every line, made a string only when new); nil in the common format.
    let agent: ArraySlice<UInt8>?

    init?(_ line: ArraySlice<UInt8>) {
        // `[time]`, then ` "`: the request line up to the `"` that a space and a status follow.
        guard let open = line.firstIndex(of: UInt8(ascii: "[")),
              let close = line[open...].firstIndex(of: UInt8(ascii: "]")),
              line[close...].starts(with: "] \"".utf8) else { return nil }
        let start = close + 3
        var end = start
        var found = false
        while end < line.endIndex {
            if line[end] == UInt8(ascii: "\\") { end += 2; continue }
            if line[end] == UInt8(ascii: "\""), end + 4 < line.endIndex, line[end + 1] == UInt8(ascii: " "),
               (UInt8(ascii: "1")...UInt8(ascii: "5")).contains(line[end + 2]) {
                found = true
                break
            }
            end += 1
        }
        guard found, end <= line.endIndex else { return nil }
        let request = line[start..<end]
        let address = line.prefix { $0 != UInt8(ascii: " ") }
        remote = address.isEmpty || address.count > 64 ? nil : UTF8Validation.string(address)
        agent = Self.lastQuoted(line[(end + 1)...])
        // METHOD target [PROTOCOL], read in place. `"-"` (nothing read) and garbage sent to
        // the port still are log lines: a request of another shape is a line without a link.
        let space = UInt8(ascii: " ")
        func word(from i: Int) -> Range<Int> {
            var start = i
            while start < request.endIndex, request[start] == space { start += 1 }
            var end = start
            while end < request.endIndex, request[end] != space { end += 1 }
            return start..<end
        }
        let first = word(from: request.startIndex), second = word(from: first.upperBound)
        let third = word(from: second.upperBound), fourth = word(from: third.upperBound)
        guard !first.isEmpty, !second.isEmpty, fourth.isEmpty else {
            method = request
            target = []
            return
        }
        method = request[first]
        target = Self.unescaped(request[second])
    }

    /// A request as a JSON log line names it (`switchboard serve --access-log`).
    init(method: String, target: String) {
        self.method = Array(method.utf8)[...]
        self.target = Array(target.utf8)
        remote = nil
        agent = nil
    }

    /// The last `"..."` of what follows the request line (the combined format's agent,
    /// after the referer), nil when there are fewer than two.
    private static func lastQuoted(_ rest: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        guard rest.last == UInt8(ascii: "\"") else { return nil }
        var i = rest.endIndex - 2
        while i >= rest.startIndex {
            if rest[i] == UInt8(ascii: "\""), i == rest.startIndex || rest[i - 1] != UInt8(ascii: "\\") { break }
            i -= 1
        }
        // The referer's quotes come before the agent's: one quoted field alone is no agent.
        guard i > rest.startIndex, rest[rest.startIndex..<i].contains(UInt8(ascii: "\"")) else { return nil }
        return rest[(i + 1)..<(rest.endIndex - 1)]
    }

    /// What the line says of traffic: a link, or a request that is none.
    func traffic(host: String?) -> TrafficLine {
        guard method.elementsEqual("GET".utf8) || method.elementsEqual("HEAD".utf8), !target.isEmpty else { return .skipped }
        let path = target.prefix { $0 != UInt8(ascii: "?") }
        if path.elementsEqual("/v1/resolve".utf8) {
            return resolveRequest(query: target[path.endIndex...].dropFirst())
        }
        if path.count <= 13, Self.ownEndpoints.contains(where: { path.elementsEqual($0.utf8) }) { return .skipped }
        // A request target is a path: `//artist/x` is the path /artist/x, not a URL of a
        // host named `artist` (which resolution would read).
        var from = target.startIndex
        while target.count - from >= 2, target[from] == UInt8(ascii: "/"), target[from + 1] == UInt8(ascii: "/") { from += 1 }
        guard let text = UTF8Validation.string(target[from...]) else { return .bad("a request target that is not UTF-8") }
        return .record(TrafficRecord(url: TrafficFormat.onHost(text, host)))
    }

    /// Switchboard's endpoints other than `/v1/resolve`: polls, probes and tools, not links.
    static let ownEndpoints = ["/v1/manifest", "/v1/events", "/v1/routes", "/v1/validate", "/healthz", "/readyz",
                               "/metrics", "/openapi.json"]

    /// `GET /v1/resolve?url=...&platform=...`: the `url` parameter in its context. One
    /// without a readable `url` was answered 400 and opened nothing.
    private func resolveRequest(query: ArraySlice<UInt8>) -> TrafficLine {
        var url: String?
        var context = ResolveContext()
        for item in query.split(separator: UInt8(ascii: "&")) {
            let key = item.prefix { $0 != UInt8(ascii: "=") }
            let raw = Array(item[key.endIndex...].dropFirst())
            guard let value = PercentDecoding.decode(raw, 0..<raw.count, plusAsSpace: true) else { return .skipped }
            switch String(decoding: key, as: UTF8.self) {
            case "url": url = value
            case let name:
                guard let field = ResolveContext.Field(rawValue: name), !value.isEmpty else { continue }
                do { try context.set(field, value) } catch { return .skipped }
            }
        }
        guard let url else { return .skipped }
        return .record(TrafficRecord(url: url, context: context))
    }

    private static func unescaped(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        guard bytes.contains(UInt8(ascii: "\\")) else { return Array(bytes) }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let b = bytes[i]
            if b == UInt8(ascii: "\\"), i + 1 < bytes.endIndex {
                let next = bytes[i + 1]
                if next == UInt8(ascii: "x"), i + 3 < bytes.endIndex,
                   let hi = PercentDecoding.hexValue(bytes[i + 2]), let lo = PercentDecoding.hexValue(bytes[i + 3]) {
                    out.append(hi << 4 | lo)
                    i += 4
                    continue
                }
                if next == UInt8(ascii: "\"") || next == UInt8(ascii: "\\") {
                    out.append(next)
                    i += 2
                    continue
                }
            }
            out.append(b)
            i += 1
        }
        return out
    }
}
