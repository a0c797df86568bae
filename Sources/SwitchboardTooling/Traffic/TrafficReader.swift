import Switchboard
/// Reads traffic files as they stream in: splits bytes into lines, detects each file's
/// format from its first line that fits one, and hands each link to `body`. Lines
/// that fit no format are counted, the first few kept with their file and line number;
/// none stops the run. Memory is bounded by the longest line kept (12 KiB, the longest
/// request target the server accepts; a longer one is a bad line, skipped to its end).
///
/// ```swift
/// var reader = TrafficReader(host: nil)
/// reader.begin(file: "access.log")
/// reader.feed(chunk) { record in ... }   // as often as chunks come
/// reader.finish { record in ... }
/// ```
package struct TrafficReader: Sendable {
    /// A line that fit no format.
    package struct BadLine: Sendable, Equatable {
        package let file: String
        package let line: Int
        package let reason: String
    }

    package static let maxLineLength = 12 << 10
    package static let keptBadLines = 10

    /// `host`: what a path-only URL is taken to be on (`--host`), as for a web host's log.
    package let host: String?
    /// Whether requests that are not links (``NotALink``) are read as links (`--include-bots`).
    package let includeBots: Bool
    /// Requests that are not links, by kind, when they are counted apart.
    package private(set) var notLinks: [NotALink: Int] = [:]
    /// Lines read, bad lines among them, and lines with no link (blank, comments, other
    /// endpoints, other methods).
    package private(set) var lines = 0
    package private(set) var badLines = 0
    package private(set) var skippedLines = 0
    /// Requests read: links, each line counting its `hits`.
    package private(set) var requests = 0
    /// The first ``keptBadLines`` bad lines.
    package private(set) var badExamples: [BadLine] = []
    /// Each file's detected format, in order.
    package private(set) var formats: [(file: String, format: TrafficFormat)] = []

    /// The file being read, and its line last read.
    package private(set) var file = ""
    package private(set) var lineNumber = 0
    private var format: TrafficFormat?
    /// Verdicts on the user agents met: a log has few distinct ones (bounded all the same).
    private var agents: [String: Bool] = [:]
    private var lastAgent: (agent: String, bot: Bool)?
    private var lastAgentBytes: (bytes: [UInt8], bot: Bool)?
    /// A CloudFront file's columns, from its `#Fields:` line.
    private var fields = EdgeLogLine.cloudFrontFields
    private var pending: [UInt8] = []
    private var overlong = false

    package init(host: String? = nil, includeBots: Bool = false) {
        self.host = host
        self.includeBots = includeBots
    }

    /// Starts a file: line numbers count from 1 again, its format is detected anew.
    package mutating func begin(file: String) {
        self.file = file
        lineNumber = 0
        format = nil
        fields = EdgeLogLine.cloudFrontFields
        pending.removeAll(keepingCapacity: true)
        overlong = false
    }

    /// Reads the complete lines of `chunk` (with what an earlier chunk left unfinished).
    package mutating func feed(_ chunk: ArraySlice<UInt8>, _ body: (TrafficRecord) -> Void) {
        var start = chunk.startIndex
        while let newline = chunk[start...].firstIndex(of: UInt8(ascii: "\n")) {
            if pending.isEmpty && !overlong {
                take(chunk[start..<newline], body)
            } else {
                if !overlong && pending.count + (newline - start) <= Self.maxLineLength { pending += chunk[start..<newline] } else { overlong = true }
                take(pending[...], body)
                pending.removeAll(keepingCapacity: true)
            }
            start = newline + 1
        }
        let rest = chunk[start...]
        if overlong || pending.count + rest.count > Self.maxLineLength {
            overlong = true
            pending.removeAll(keepingCapacity: true)
        } else {
            pending += rest
        }
    }

    /// Why what was read cannot stand for traffic, nil when it can: no request at all (an
    /// empty file, a format not read), or more bad lines than `maxBadShare` of the lines.
    /// A gate fails on it rather than pass on nothing.
    package func problem(maxBadShare: Double) -> String? {
        if requests == 0 {
            if lines == 0 { return "no request was read: the traffic files hold no line" }
            let apart = notLinks.values.reduce(0, +)
            return "no request was read from \(lines) line\(lines == 1 ? "" : "s") (\(badLines) fit no format"
                + (apart > 0 ? ", \(apart) were not links: bots, static files, well-known paths, scanners; --include-bots reads them" : "") + ")"
                + (badExamples.first.map { "; first: \($0.file):\($0.line): \($0.reason)" } ?? "")
        }
        if lines > 0, Double(badLines) / Double(lines) > maxBadShare {
            return "\(badLines) of \(lines) lines (\(TrafficReport.percent(badLines, of: lines))) fit no format, more than --max-bad-lines "
                + TrafficReport.percentText(maxBadShare)
                + (badExamples.first.map { "; first: \($0.file):\($0.line): \($0.reason)" } ?? "")
        }
        return nil
    }

    /// Reads a last line without a line end.
    package mutating func finish(_ body: (TrafficRecord) -> Void) {
        if !pending.isEmpty || overlong { take(pending[...], body) }
        pending.removeAll(keepingCapacity: true)
    }

    private mutating func take(_ line: ArraySlice<UInt8>, _ body: (TrafficRecord) -> Void) {
        lineNumber += 1
        lines += 1
        if overlong || line.count > Self.maxLineLength {
            overlong = false
            bad("longer than \(Self.maxLineLength) bytes")
            return
        }
        if format == nil {
            guard !TrafficFormat.trim(line).isEmpty else { skippedLines += 1; return }
            guard let detected = TrafficFormat.detect(line) else {
                bad("fits no format: not a URL, a JSON object or an access log line")
                return
            }
            format = detected
            formats.append((file, detected))
        }
        if format == .cloudFront, let named = EdgeLogLine.fields(TrafficFormat.trim(line)) { fields = named }
        var agentBytes: ArraySlice<UInt8>?
        switch format!.read(line, host: host, fields: fields, agent: &agentBytes) {
        case .record(let record):
            var bot = false
            if !includeBots, let agent = agentBytes { bot = isBot(agent) } else if !includeBots, let agent = record.agent { bot = isBot(agent) }
            if !includeBots, let kind = NotALink.classify(url: record.url, isBot: bot) {
                notLinks[kind, default: 0] += record.hits
                return
            }
            requests += record.hits
            body(record)
        case .skipped:
            skippedLines += 1
        case .bad(let reason):
            bad(reason)
        }
    }

    /// ``isBot(_:)`` of an agent's bytes: the last one's verdict when they are its, with no string made.
    private mutating func isBot(_ agent: ArraySlice<UInt8>) -> Bool {
        if let last = lastAgentBytes, last.bytes.elementsEqual(agent) { return last.bot }
        let verdict = isBot(String(decoding: agent, as: UTF8.self))
        lastAgentBytes = (Array(agent), verdict)
        return verdict
    }

    /// Whether `agent` is a crawler's or a script's, asked of ``NotALink`` once per agent:
    /// the last agent first (a log's lines come in runs of one client), then the table.
    private mutating func isBot(_ agent: String) -> Bool {
        if let last = lastAgent, last.agent == agent { return last.bot }
        let verdict: Bool
        if let known = agents[agent] {
            verdict = known
        } else {
            verdict = NotALink.isBot(agent)
            if agents.count < 4096 { agents[agent] = verdict }
        }
        lastAgent = (agent, verdict)
        return verdict
    }

    private mutating func bad(_ reason: String) {
        badLines += 1
        if badExamples.count < Self.keptBadLines { badExamples.append(BadLine(file: file, line: lineNumber, reason: reason)) }
    }
}
