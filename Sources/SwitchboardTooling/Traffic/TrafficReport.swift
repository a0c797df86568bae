import Switchboard
/// What `switchboard traffic` reports: requests by outcome, hits per route (zero
/// included), the routes no request used or few did, and the links that end at the
/// fallback or are rejected, grouped by shape. Text, JSON and Markdown.
package struct TrafficReport: Sendable {
    package struct RouteHits: Sendable {
        package let route: String
        /// Requests it answered, and for a redirect route, requests it passed on.
        package let hits: Int
        package let redirect: Bool
    }

    package struct Nowhere: Sendable {
        package let shape: String
        package let status: Resolution.Status
        package let reason: String?
        package let hits: Int
        /// How much of `hits` may belong to shapes it replaced (0: exact).
        package let overcount: Int
        package let example: String
    }

    /// Requests read (a JSON line's `hits` counted as that many).
    package let total: Int
    package let lines: Int
    package let badLines: Int
    package let skippedLines: Int
    package let badExamples: [TrafficReader.BadLine]
    package let formats: [(file: String, format: String)]
    package let outcomes: [(status: Resolution.Status, hits: Int)]
    /// Rejections by reason, most first.
    package let reasons: [(reason: String, hits: Int)]
    /// Every route, in manifest order.
    package let routes: [RouteHits]
    package let rareBelow: Int
    /// How many routes, and shapes of links that go nowhere, the text and Markdown list (`--top`).
    package let top: Int
    /// The most requested shapes of links that went nowhere, most first.
    package let nowhere: [Nowhere]
    /// How many shapes of such links were counted (at most the sketch's capacity).
    package let nowhereShapes: Int
    /// Whether the shapes' counts are estimates (more shapes than the sketch holds).
    package let estimated: Bool
    /// URLs resolved: the distinct ones, more if some were resolved again.
    package let resolved: Int
    package let cacheEvicted: Bool
    /// Distinct clients of the lines that name one (exact up to 4,096, then estimated
    /// within about 2%: ``clientsEstimated``), nil when none does (a URL list).
    package let clients: Int?
    package let clientsEstimated: Bool
    package let manifestVersion: Int
    package let etag: String
    /// Requests that are not links, counted apart (``NotALink``), in its order; empty with
    /// `--include-bots`.
    package let notLinks: [(kind: NotALink, hits: Int)]
    /// Catch-all web routes that took links no other route did, and how many: counted as
    /// the fallback's (``TrafficAnalysis/standsInForTheFallback(_:)``).
    package let standIns: [(route: String, hits: Int)]

    package var unused: [String] { routes.filter { $0.hits == 0 }.map(\.route) }
    package var rare: [RouteHits] { routes.filter { $0.hits > 0 && $0.hits < rareBelow }.sorted { $0.hits < $1.hits } }

    func share(_ hits: Int) -> String { Self.percent(hits, of: total) }

    /// `1.8%`, `0.012%`, `<0.001%`: three significant digits at most, none trailing.
    static func percent(_ part: Int, of whole: Int) -> String {
        guard whole > 0, part != 0 else { return "0%" }
        let p = Double(part) / Double(whole) * 100
        if p < 0.001 { return "<0.001%" }
        let digits = p >= 10 ? 1 : p >= 1 ? 2 : 3
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        var text = "\((p * scale).rounded() / scale)"
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text + "%"
    }

    /// `2,345,000`.
    /// A fraction of 1 as a percentage, as a flag takes it: `0.01` is `1%`.
    package static func percentText(_ fraction: Double) -> String {
        var text = "\((fraction * 100_000).rounded() / 1000)"
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text + "%"
    }

    /// Reads `1%`, `0.5%`: a fraction of 1, nil for anything else or past 100%.
    package static func share(_ text: String) -> Double? {
        guard text.hasSuffix("%"), let percent = Double(text.dropLast()), percent >= 0, percent <= 100, percent.isFinite else { return nil }
        return percent / 100
    }

    static func grouped(_ n: Int) -> String {
        let digits = Array(String(n.magnitude))
        var out = ""
        for (i, d) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out += "," }
            out.append(d)
        }
        return (n < 0 ? "-" : "") + out
    }

    func label(_ n: Nowhere) -> String {
        n.status == .fallback ? "fallback" : "rejected (\(n.reason ?? ""))"
    }
}

extension TrafficReport {
    package var text: String {
        var out = "\(Self.grouped(total)) requests from \(Self.grouped(lines)) lines"
        out += " (\(Self.grouped(badLines)) bad, \(Self.grouped(skippedLines)) without a link); \(Self.grouped(resolved)) URLs resolved"
        out += " with manifest version \(manifestVersion) \(etag)"
        if let clients { out += "; \(clientsEstimated ? "about " : "")\(Self.grouped(clients)) clients" }
        out += "\n"
        if !notLinks.isEmpty {
            out += "not links, counted apart (--include-bots reads them): "
                + notLinks.map { "\(Self.grouped($0.hits)) \($0.kind.rawValue)" }.joined(separator: ", ") + "\n"
        }
        for bad in badExamples { out += "  bad line \(bad.file):\(bad.line): \(bad.reason)\n" }
        if badLines > badExamples.count { out += "  ... and \(Self.grouped(badLines - badExamples.count)) more bad lines\n" }
        out += "outcomes:\n"
        for (status, hits) in outcomes { out += "  \(status.rawValue): \(Self.grouped(hits)) (\(share(hits)))\n" }
        for (reason, hits) in reasons { out += "    rejected (\(reason)): \(Self.grouped(hits))\n" }
        let used = routes.filter { $0.hits > 0 }.sorted { $0.hits > $1.hits }
        out += "routes by hits:\n"
        for r in used.prefix(top) { out += "  \(r.route)\(r.redirect ? " (redirect)" : ""): \(Self.grouped(r.hits)) (\(share(r.hits)))\n" }
        if used.count > top { out += "  ... \(used.count - top) more routes with hits (--top shows more)\n" }
        for standIn in standIns {
            out += "  route \(standIn.route) (a catch-all presented web) stood in for the fallback: \(Self.grouped(standIn.hits)) requests counted as fallback\n"
        }
        out += "links that go nowhere (fallback or rejected), by shape\(estimated ? " (counts estimated: more shapes than the sketch holds)" : ""):\n"
        if nowhere.isEmpty { out += "  none\n" }
        for n in nowhere {
            let hits = n.overcount > 0 ? "≤\(Self.grouped(n.hits))" : Self.grouped(n.hits)
            out += "  \(hits) \(label(n)) \(n.shape)  e.g. \(n.example)\n"
        }
        let unused = self.unused
        out += "unused routes (\(unused.count) of \(routes.count), no hits): \(unused.isEmpty ? "none" : unused.joined(separator: ", "))\n"
        let rare = self.rare
        out += "rare routes (under \(rareBelow) hits): \(rare.isEmpty ? "none" : rare.map { "\($0.route) (\($0.hits))" }.joined(separator: ", "))\n"
        return out
    }

    package var json: JSONValue {
        func count(_ n: Int) -> JSONValue { .integer(Int64(n)) }
        return .object([
            .init("total", count(total)), .init("lines", count(lines)), .init("badLines", count(badLines)),
            .init("skippedLines", count(skippedLines)), .init("clients", clients.map(count) ?? .null),
            .init("clientsEstimated", .bool(clientsEstimated)),
            .init("bad", .array(badExamples.map { .object([.init("file", .string($0.file)), .init("line", count($0.line)), .init("reason", .string($0.reason))]) })),
            .init("formats", .array(formats.map { .object([.init("file", .string($0.file)), .init("format", .string($0.format))]) })),
            .init("manifest", .object([.init("version", count(manifestVersion)), .init("etag", .string(etag))])),
            .init("outcomes", .object(outcomes.map { .init($0.status.rawValue, count($0.hits)) })),
            .init("rejected", .object(reasons.map { .init($0.reason, count($0.hits)) })),
            .init("routes", .array(routes.map { .object([.init("route", .string($0.route)), .init("hits", count($0.hits))]) })),
            .init("unused", .array(unused.map { .string($0) })),
            .init("rare", .array(rare.map { .object([.init("route", .string($0.route)), .init("hits", count($0.hits))]) })),
            .init("rareBelow", count(rareBelow)),
            .init("nowhere", .array(nowhere.map { n in
                var members: [JSONValue.Member] = [.init("shape", .string(n.shape)), .init("hits", count(n.hits)),
                                                    .init("example", .string(n.example)), .init("status", .string(n.status.rawValue))]
                if let reason = n.reason { members.append(.init("reason", .string(reason))) }
                if n.overcount > 0 { members.append(.init("overcount", count(n.overcount))) }
                return .object(members)
            })),
            .init("estimated", .bool(estimated)),
            .init("resolved", count(resolved)),
            .init("notLinks", .object(notLinks.map { .init($0.kind.rawValue, count($0.hits)) })),
            .init("fallbackStandIns", .array(standIns.map { .object([.init("route", .string($0.route)), .init("hits", count($0.hits))]) })),
        ])
    }

    package var markdown: String {
        func cell(_ text: String) -> String { DiffMarkdownRenderer.escape(text) }
        var out = "### Traffic: \(Self.grouped(total)) requests\n\n"
        out += "Manifest version \(manifestVersion) (`\(etag)`); \(Self.grouped(lines)) lines, \(Self.grouped(badLines)) bad"
        if !notLinks.isEmpty { out += "; not links, counted apart: " + notLinks.map { "\(Self.grouped($0.hits)) \($0.kind.rawValue)" }.joined(separator: ", ") }
        out += ".\n\n"
        out += "| outcome | requests | share |\n| --- | ---: | ---: |\n"
        for (status, hits) in outcomes { out += "| \(status.rawValue) | \(Self.grouped(hits)) | \(share(hits)) |\n" }
        for standIn in standIns {
            out += "\nRoute \(DiffMarkdownRenderer.code(standIn.route)) (a catch-all presented web) stood in for the fallback: \(Self.grouped(standIn.hits)) requests counted as fallback.\n"
        }
        let used = routes.filter { $0.hits > 0 }.sorted { $0.hits > $1.hits }
        out += "\n**Routes by requests**\(used.count > top ? " (the first \(top) of \(used.count); --top shows more)" : ""):\n\n"
        out += "| route | requests | share |\n| --- | ---: | ---: |\n"
        for r in used.prefix(top) { out += "| \(DiffMarkdownRenderer.code(r.route))\(r.redirect ? " (redirect)" : "") | \(Self.grouped(r.hits)) | \(share(r.hits)) |\n" }
        out += "\n**Links that go nowhere**\(estimated ? " (estimated counts)" : ""):\n\n"
        out += "| requests | outcome | shape | example |\n| ---: | --- | --- | --- |\n"
        for n in nowhere { out += "| \(Self.grouped(n.hits)) | \(cell(label(n))) | \(DiffMarkdownRenderer.code(n.shape)) | \(DiffMarkdownRenderer.code(n.example)) |\n" }
        out += "\n**Unused routes**: \(unused.isEmpty ? "none" : unused.map { DiffMarkdownRenderer.code($0) }.joined(separator: ", "))\n"
        let rare = self.rare
        out += "\n**Rare routes** (under \(rareBelow) requests): \(rare.isEmpty ? "none" : rare.map { "\(DiffMarkdownRenderer.code($0.route)) (\($0.hits))" }.joined(separator: ", "))\n"
        return out
    }
}
