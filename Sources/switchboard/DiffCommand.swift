import ArgumentParser
import Foundation
import Switchboard

struct DiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "What changed between two manifests: declarations by route, and outcomes by URL.",
        discussion: """
            Replays every pattern expansion of both manifests (typed values that fit and that do not, query params, \
            wildcards, hosts, schemes) and the --cases files with both, in every context that matters to each URL, and \
            rates each URL that resolves differently: breaking (a URL that opened a destination now falls back, leaves \
            the app, is rejected or opens another), changed (same destination, other params or presentation), added \
            (a fallback now matches). OLD or NEW may be a running server's URL (its GET /v1/manifest). \
            Exit status: 0 nothing at or above --fail-on, 1 something is, 2 unreadable input.
            """
    )

    @Argument(help: "The manifest before (a file, or http://host:port of a running server).")
    var old: String

    @Argument(help: "The manifest after (a file, or a server URL).")
    var new: String

    @Option(help: ArgumentHelp("Also replay these cases files (the validate format).", valueName: "file"))
    var cases: [String] = []

    @Option(help: "text, json, markdown, junit or github.")
    var format: ReportFormat = .text

    @Option(name: .customLong("fail-on"), help: "Exit 1 on a change at or above: breaking, changed, any or none.")
    var failOn: FailureThreshold = .breaking

    @Option(help: ArgumentHelp("Accepted changes: a fingerprint and a reason a line.", valueName: "file"))
    var ignore: String?

    func run() throws {
        let before = try Self.load(old), after = try Self.load(new)
        var probes: [ManifestDiff.Probe] = []
        for (file, path) in cases.enumerated() {
            for c in try CasesFile.read(path) {
                probes.append(.init(url: c.url, shape: "case \(c.url)", context: c.context, source: .cases(file: file, line: c.line)))
            }
        }
        var accepted: [String: String] = [:]
        if let ignore {
            do {
                accepted = try IgnoreList.parse(String(decoding: try ManifestFile.read(ignore), as: UTF8.self))
            } catch {
                printError("switchboard: \(ignore): \(error)")
                throw ExitCode(2)
            }
        }
        let diff = ManifestDiff(old: before, new: after, cases: probes)
        let report = DiffReport(diff: diff, oldFile: old, newFile: new, oldRoutePositions: before.routePositions,
                                newRoutePositions: after.routePositions, caseFiles: cases, ignore: accepted,
                                failOn: failOn)
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

    /// A manifest file, or the manifest a running server has in service.
    static func load(_ source: String) throws -> CompiledManifest {
        if source.hasPrefix("http://") || source.hasPrefix("https://") { return try RemoteServer(source).manifest() }
        return try Diagnostics.loadOrExit(source, invalidStatus: 2)
    }
}

extension FailureThreshold: ExpressibleByArgument {}
