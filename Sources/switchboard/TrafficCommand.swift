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
            --show-query. Exit status: 0, or 2 when a file or the manifest cannot be read.
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

    @Option(help: "How many shapes of links that go nowhere to list.")
    var top = 20

    @Option(name: .customLong("rare-below"), help: "List routes with fewer hits than this (but some) as rare.")
    var rareBelow = 10

    @Option(help: ArgumentHelp("MiB the tables of URLs and shapes may hold, whatever their lines' length; past it the least requested give way.", valueName: "MiB"))
    var memory = TrafficAnalysis.defaultMemoryBudget >> 20

    func validate() throws {
        if files.isEmpty { throw ValidationError("give at least one traffic file, or - for standard input") }
        if manifest.configFlag != nil && server != nil { throw ValidationError("give --config or --server, not both") }
        if top < 0 { throw ValidationError("--top must be 0 or more") }
        if memory < 1 || memory > 1 << 20 { throw ValidationError("--memory must be between 1 and 1048576 MiB") }
    }

    func run() throws {
        let compiled = try server.map { try RemoteServer($0).manifest() } ?? manifest.load()
        let analysis = TrafficAnalysis(manifest: compiled, showQuery: showQuery, memoryBudget: memory << 20)
        var reader = TrafficReader(host: host)
        try readTraffic(files, into: &reader) { analysis.add($0) }
        let report = analysis.report(reader, top: top, rareBelow: rareBelow)
        switch format {
        case .text: print(report.text, terminator: "")
        case .json: print(String(decoding: report.json.serialized(), as: UTF8.self))
        case .markdown: print(report.markdown, terminator: "")
        }
    }
}

/// `--format` of `traffic`.
enum TrafficFormatOption: String, ExpressibleByArgument, CaseIterable {
    case text, json, markdown
}

/// Reads traffic files for `traffic` and `diff --traffic`; a file that cannot be read
/// ends the run with exit 2.
func readTraffic(_ paths: [String], into reader: inout TrafficReader, _ body: (TrafficRecord) -> Void) throws {
    do {
        try TrafficFiles.read(paths, into: &reader, body)
    } catch {
        printError("switchboard: \(error)")
        throw ExitCode(2)
    }
}
