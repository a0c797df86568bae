import ArgumentParser
import Foundation
import Switchboard
import SwitchboardTooling

struct TrafficCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "traffic",
        abstract: "What real links do today: outcomes by hits, links that go nowhere, routes nobody uses.",
        discussion: """
            Reads plain URL lists (one a line), JSON lines ({"url", "platform", "idiom", "appVersion", "hits"}) or \
            nginx/Apache access logs in the common or combined format, each file's format detected from its first \
            line that fits one; gzip is read as it is; - reads standard input. In an access log the request target is the URL, \
            and a request to Switchboard's own /v1/resolve stands for its url parameter in its context (its other \
            endpoints are not links). Lines that fit no format are counted and the first few named; none stops \
            the run. Streamed in bounded memory. Query values and fragments are left out of the report unless \
            --show-query. Exit status: 0; 2 when a file or the manifest cannot be read, a gzip stream is \
            damaged or cut short, no request was read, more lines than --max-bad-lines fit no format, or \
            --max-seconds passed before the end (the report then covers the lines read, and says so).
            """
    )

    @Argument(help: ArgumentHelp("Traffic files (- for standard input).", valueName: "file"))
    var files: [String]

    @OptionGroup var manifest: ManifestOptions

    @Option(help: ArgumentHelp("Judge by the manifest a running server has in service (its GET /v1/manifest) instead of --config.", valueName: "url"))
    var server: String?

    @Option(help: "text, json or markdown.")
    var format: TrafficFormatOption = .text

    @Option(help: ArgumentHelp("Read path-only URLs (/artist/x, as in a web host's access log) as https URLs of this host.", valueName: "host"))
    var host: String?

    @Flag(name: .customLong("show-query"), help: "Show query values and fragments in examples (they may carry personal data).")
    var showQuery = false

    @Flag(name: .customLong("include-bots"), help: "Read crawlers, static files, well-known paths and scanners' probes as links (by default they are counted apart).")
    var includeBots = false

    @Option(help: "How many routes, and shapes of links that go nowhere, to list (text and markdown; json lists every route).")
    var top = 20

    @Option(name: .customLong("rare-below"), help: "List routes with fewer hits than this (but some) as rare.")
    var rareBelow = 10

    @Option(help: ArgumentHelp("MiB the tables of URLs and shapes may hold, whatever their lines' length; past it the least requested give way.", valueName: "MiB"))
    var memory = TrafficAnalysis.defaultMemoryBudget >> 20

    @Option(name: .customLong("max-bad-lines"), help: ArgumentHelp("Exit 2 when more than this share of the lines fit no format (as when no request is read at all).", valueName: "pct"))
    var maxBadLines = Share.badLinesDefault

    @Option(name: .customLong("max-seconds"), help: ArgumentHelp("Stop reading after this many seconds, report what was read, and exit 2 (no limit by default).", valueName: "seconds"))
    var maxSeconds: Int?

    func validate() throws {
        if let maxSeconds, maxSeconds < 1 { throw ValidationError("--max-seconds must be 1 or more") }
        if files.isEmpty { throw ValidationError("give at least one traffic file, or - for standard input") }
        if manifest.configFlag != nil && server != nil { throw ValidationError("give --config or --server, not both") }
        if top < 0 { throw ValidationError("--top must be 0 or more") }
        if memory < 1 || memory > 1 << 20 { throw ValidationError("--memory must be between 1 and 1048576 MiB") }
    }

    func run() throws {
        let compiled = try server.map { try RemoteServer($0).manifest() } ?? manifest.load()
        let analysis = TrafficAnalysis(manifest: compiled, showQuery: showQuery, memoryBudget: memory << 20)
        var reader = TrafficReader(host: host, includeBots: includeBots)
        let deadline = maxSeconds.map { ContinuousClock.now + .seconds($0) }
        let complete = try readTraffic(files, into: &reader, deadline: deadline) { analysis.add($0) }
        let report = analysis.report(reader, top: top, rareBelow: rareBelow)
        switch format {
        case .text: print(report.text, terminator: "")
        case .json: print(String(decoding: report.json.serialized(), as: UTF8.self))
        case .markdown: print(report.markdown, terminator: "")
        }
        // A report of part of the traffic is not the traffic: a gate must not pass on it.
        if !complete {
            printError("switchboard: stopped after --max-seconds \(maxSeconds ?? 0) at line \(reader.lineNumber) of \(reader.file) (\(reader.lines) lines in all): the report covers the \(reader.requests) requests read before it")
            throw ExitCode(2)
        }
        // A report of nothing is no report: a gate that reads it must not pass.
        if let problem = reader.problem(maxBadShare: maxBadLines.fraction) {
            printError("switchboard: \(problem)")
            throw ExitCode(2)
        }
    }
}

/// `--format` of `traffic`.
enum TrafficFormatOption: String, ExpressibleByArgument, CaseIterable {
    case text, json, markdown
}

/// Reads traffic files for `traffic` and `diff --traffic`; a file that cannot be read
/// ends the run with exit 2.
@discardableResult
func readTraffic(_ paths: [String], into reader: inout TrafficReader, deadline: ContinuousClock.Instant? = nil,
                 _ body: (TrafficRecord) -> Void) throws -> Bool {
    // On a terminal, a progress line every two seconds, rewritten in place and cleared at
    // the end; never in a pipe or a CI log.
    let terminal = isatty(2) == 1
    var shown = ContinuousClock.now, wrote = false
    let started = shown
    let progress: ((TrafficReader) -> Void)? = terminal ? { reader in
        let now = ContinuousClock.now
        guard now - shown >= .seconds(2) else { return }
        shown = now
        wrote = true
        let seconds = Double((now - started).components.seconds) + Double((now - started).components.attoseconds) / 1e18
        let rate = seconds > 0 ? Int(Double(reader.lines) / seconds) : 0
        FileHandle.standardError.write(Data("\rswitchboard: \(reader.lines) lines read (\(rate) a second), \(reader.requests) requests   ".utf8))
    } : nil
    defer { if wrote { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) } }
    do {
        return try TrafficFiles.read(paths, into: &reader, progress: progress, deadline: deadline, body)
    } catch {
        printError("switchboard: \(error)")
        throw ExitCode(2)
    }
}

/// A share given as a percentage (`1%`, `0.5%`).
struct Share: ExpressibleByArgument, CustomStringConvertible {
    let fraction: Double
    var description: String { TrafficReport.percentText(fraction) }

    /// Bad lines a traffic file may have: a log with a line or two of garbage is read, one
    /// in a format not read (every line bad) is not.
    static let badLinesDefault = Share(fraction: 0.01)

    init(fraction: Double) { self.fraction = fraction }

    init?(argument: String) {
        guard let fraction = TrafficReport.share(argument) else { return nil }
        self.fraction = fraction
    }

    var defaultValueDescription: String { description }
}
