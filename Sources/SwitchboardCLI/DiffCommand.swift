import ArgumentParser
import Foundation
import Switchboard
import SwitchboardTooling

struct DiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "What changed between two manifests: declarations by route, and outcomes by URL.",
        discussion: """
            Replays every pattern expansion of both manifests (typed values that fit and that do not, query params, \
            wildcards, hosts, schemes) and the --cases files with both, in every context that matters to each URL, and \
            rates each change by what the user sees: breaking (a link that opened a screen of the app now opens \
            another, a web page, the fallback, leaves the app or is refused), added (a link that opened a web page, \
            fell back or left the app now opens a screen of the app), changed (the same screen, or one web page for \
            another). URLs that change the same way are one finding, with one fingerprint for --ignore. \
            Annotations go on NEW. OLD or NEW may be a running server's URL (its GET /v1/manifest). \
            --traffic weighs each change by real requests (the files `switchboard traffic` reads), each resolved \
            in its own context by both manifests; --fail-on-share fails by share of those requests. \
            Exit status: 0 nothing at or above --fail-on and no --fail-on-share exceeded, 1 otherwise (or an invalid \
            manifest, reported in the chosen format; or a stale ignore entry with --strict-ignore), 2 unreadable input.
            """
    )

    @Argument(help: "The manifest before (a file, or http://host:port of a running server).")
    var old: String

    @Argument(help: "The manifest after (a file, or a server URL).")
    var new: String

    @Option(help: ArgumentHelp("Also replay these cases files (the validate format).", valueName: "file"))
    var cases: [String] = []

    @Option(help: "text, json, markdown, junit or github.")
    var format: DiffFormat = .text

    @Option(name: .customLong("fail-on"), help: "Exit 1 on a change at or above: breaking, changed, any or none.")
    var failOn: FailureThreshold = .breaking

    @Option(help: ArgumentHelp("Accepted changes: a fingerprint and a reason a line.", valueName: "file"))
    var ignore: String?

    @Flag(name: .customLong("strict-ignore"), help: "Exit 1 when an --ignore entry matches no change (it is always reported).")
    var strictIgnore = false

    @Option(parsing: .upToNextOption, help: ArgumentHelp("Weigh changes by the requests of these traffic files (URL lists, JSON lines, access logs; gzip; - for standard input).", valueName: "file"))
    var traffic: [String] = []

    @Option(name: .customLong("fail-on-share"), help: ArgumentHelp("Exit 1 when more than this share of the --traffic requests changes at a severity or above: breaking=0.1%, changed=1%, added=5%. Repeatable.", valueName: "severity=pct"))
    var failOnShare: [ShareThreshold] = []

    @Option(help: ArgumentHelp("Read path-only URLs of --traffic as https URLs of this host.", valueName: "host"))
    var host: String?

    @Flag(name: .customLong("show-query"), help: "Show query values and param values of --traffic URLs (they may carry personal data).")
    var showQuery = false

    @Flag(name: .customLong("include-bots"), help: "Read crawlers, static files, well-known paths and scanners' probes as links (by default they are counted apart).")
    var includeBots = false

    @Option(name: .customLong("max-bad-lines"), help: ArgumentHelp("With --fail-on-share, fail when more than this share of the --traffic lines fit no format (as when no request is read at all).", valueName: "pct"))
    var maxBadLines = Share.badLinesDefault

    func validate() throws {
        if !failOnShare.isEmpty && traffic.isEmpty { throw ValidationError("--fail-on-share needs --traffic: a share of which requests?") }
    }

    func run() throws {
        let before = try load(old), after = try load(new)
        var probes: [ManifestDiff.Probe] = []
        for (file, path) in cases.enumerated() {
            for c in try CasesFile.read(path) {
                probes.append(.init(url: c.url, shape: "case \(c.url)", context: c.context, source: .cases(file: file, line: c.line)))
            }
        }
        var accepted: [String: DiffReport.Accepted] = [:]
        if let ignore {
            do {
                accepted = try IgnoreList.parse(String(decoding: try ManifestFile.read(ignore), as: UTF8.self))
            } catch {
                printError("switchboard: \(ignore): \(error)")
                throw ExitCode(2)
            }
        }
        var weighed: TrafficImpact.Result?
        if !traffic.isEmpty {
            let impact = TrafficImpact(old: before, new: after, showQuery: showQuery)
            var reader = TrafficReader(host: host, includeBots: includeBots)
            try readTraffic(traffic, into: &reader) { impact.add($0) }
            weighed = impact.result(reader, maxBadShare: maxBadLines.fraction)
        }
        let diff = ManifestDiff(old: before, new: after, cases: probes)
        let report = DiffReport(diff: diff, oldFile: old, newFile: new, oldRoutePositions: before.routePositions,
                                newRoutePositions: after.routePositions, caseFiles: cases, ignore: accepted,
                                ignoreFile: ignore, failOn: failOn, strictIgnore: strictIgnore,
                                traffic: weighed, failOnShare: failOnShare)
        let renderer: any DiffRenderer
        switch format {
        case .text: renderer = DiffTextRenderer()
        case .json: renderer = DiffJSONRenderer()
        case .markdown: renderer = DiffMarkdownRenderer()
        case .junit: renderer = DiffJUnitRenderer()
        case .github: renderer = DiffGitHubRenderer()
        }
        print(renderer.render(report), terminator: "")
        if report.fails { throw ExitCode(1) }
    }

    /// A manifest file, or the manifest a running server has in service. An invalid one is
    /// reported as `check` reports it, in the chosen format (annotations on its lines, a
    /// JSON object), and the run exits 1.
    func load(_ source: String) throws -> CompiledManifest {
        if source.hasPrefix("http://") || source.hasPrefix("https://") { return try RemoteServer(source).manifest() }
        return try Diagnostics.loadOrExit(source) { path, diagnostics in
            let report = CheckReport(file: path, diagnostics: diagnostics)
            switch format {
            case .json: print(report.json, terminator: "")
            case .github: print(report.githubAnnotations.joined(separator: "\n"))
            case .text, .markdown, .junit: Diagnostics.report(path, diagnostics) { print($0) }
            }
        }
    }
}

extension FailureThreshold: ExpressibleByArgument {}

extension ShareThreshold: ExpressibleByArgument {
    public init?(argument: String) { self.init(argument) }
}
