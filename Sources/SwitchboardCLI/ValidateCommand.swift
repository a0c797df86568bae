import ArgumentParser
import Foundation
import Switchboard
import SwitchboardTooling

struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check deep links against the manifest or a running server (for release pipelines).",
        discussion: """
            CASES holds one case a line: URL, URL -> Destination, URL -> fallback, URL -> external \
            or URL -> rejected; blank lines and # comments are skipped. A bare URL must match a route. \
            A case may name its context: URL [platform=ios appVersion=7.1.0] -> Destination. \
            Prints each failure with its explanation, then 'N passed, N failed'. \
            Exit status: 0 all passed, 1 any failed, 2 the cases, manifest or server cannot be read.
            """
    )

    @OptionGroup var manifest: ManifestOptions

    @Option(help: ArgumentHelp("A running Switchboard to check against, e.g. http://127.0.0.1:8080.", valueName: "url"))
    var server: String?

    @OptionGroup var context: ContextOptions

    @Option(help: ArgumentHelp("Also write the results as JUnit XML to this file.", valueName: "file"))
    var junit: String?

    @Option(help: "text, json (every case with its outcome) or github (an annotation on each failed case's line).")
    var format: ReportFormat = .text

    @Flag(help: "Report the routes and aliases no case reaches.")
    var coverage = false

    @Option(name: .customLong("fail-under"), help: ArgumentHelp("With --coverage: exit 1 when fewer than this percent are reached.", valueName: "pct"))
    var failUnder: Double?

    @Argument(help: "The cases file ('-' for standard input).")
    var cases: String

    /// URLs sent to a server in one request.
    static let batchSize = 1000

    func validate() throws {
        if manifest.configFlag != nil && server != nil { throw ValidationError("give --config or --server, not both") }
        if let server { _ = try RemoteServer(server) }
        if failUnder != nil && !coverage { throw ValidationError("--fail-under needs --coverage") }
        if let failUnder, !(0...100).contains(failUnder) { throw ValidationError("--fail-under takes a percentage from 0 to 100") }
    }

    func run() throws {
        let parsed = try CasesFile.read(cases)
        let results: [ResultSummary]
        let compiled: CompiledManifest?
        if let server {
            let remote = try RemoteServer(server)
            results = try resolveRemotely(parsed, remote)
            compiled = coverage ? try remote.manifest() : nil
        } else {
            let loaded = try manifest.load()
            results = parsed.compactMap { c in
                let json = loaded.resultJSON(loaded.resolve(c.url, context: c.context ?? context.context, explain: true))
                return (try? JSONParser.parse(json)).flatMap(ResultSummary.init(json:))
            }
            compiled = loaded
        }
        let report = ValidationReport(source: cases, entries: zip(parsed, results).map { .init(testCase: $0, result: $1) })
        let measured = coverage ? compiled.map { RouteCoverage(manifest: $0.manifest, results: results) } : nil
        switch format {
        case .json:
            print(String(decoding: report.json(coverage: measured).serialized(), as: UTF8.self))
        case .github:
            report.githubAnnotations.forEach { print($0) }
            if let measured {
                for target in measured.unreached {
                    print(GitHubAnnotation(.warning, file: nil, title: "route not covered", message: "no case reaches \(target)").command)
                }
                print(GitHubAnnotation(.notice, file: nil, title: "switchboard validate --coverage", message: measured.summary).command)
            }
        default:
            for entry in report.entries where !entry.passed {
                ValidationReport.failureText(entry).forEach { print($0) }
            }
            print(report.summary)
            if let measured {
                print(measured.summary)
                for target in measured.unreached { print("  not reached: \(target)") }
            }
        }
        if let junit {
            do {
                try Data(report.junitXML.utf8).write(to: URL(fileURLWithPath: junit))
            } catch {
                printError("switchboard: cannot write \(junit): \(error.localizedDescription)")
                throw ExitCode(2)
            }
        }
        if report.failed > 0 { throw ExitCode(1) }
        if let failUnder, let measured, measured.percent < failUnder {
            printError("switchboard: coverage \(measured.percent)% is under --fail-under \(failUnder)%")
            throw ExitCode(1)
        }
    }

    /// Sends the cases to `POST /v1/resolve` in batches (each case's own context with it)
    /// and reads the results back.
    private func resolveRemotely(_ cases: [ValidationCase], _ remote: RemoteServer) throws -> [ResultSummary] {
        let batchContext = context.context.json
        var results: [ResultSummary] = []
        for start in stride(from: 0, to: cases.count, by: Self.batchSize) {
            let batch = cases[start..<min(cases.count, start + Self.batchSize)]
            let body = JSONValue.object([
                .init("urls", .array(batch.map { c in
                    guard let own = c.context else { return .string(c.url) }
                    return .object([.init("url", .string(c.url)), .init("context", own.json)])
                })),
                .init("context", batchContext),
                .init("explain", .bool(true)),
                // A check, not traffic: the server does not count these as route hits.
                .init("probe", .bool(true)),
            ]).serialized()
            let (status, data) = try remote.post("/v1/resolve", body: body)
            guard status == 200, let document = try? JSONParser.parse(data), let items = document["results"]?.arrayValue,
                  items.count == batch.count else {
                printError("switchboard: \(remote.base)/v1/resolve answered \(status): \(String(decoding: data.prefix(300), as: UTF8.self))")
                throw ExitCode(2)
            }
            for item in items {
                guard let summary = ResultSummary(json: item) else {
                    printError("switchboard: \(remote.base)/v1/resolve sent a result without url and status")
                    throw ExitCode(2)
                }
                results.append(summary)
            }
        }
        return results
    }
}
