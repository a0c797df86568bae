import ArgumentParser
import Switchboard
import SwitchboardTooling

struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate a manifest and print every problem, with its line and column.",
        discussion: "Exit status: 0 valid (warnings allowed), 1 problems found, 2 the file cannot be read."
    )

    @Argument(help: "The manifest to check.")
    var manifest: String = "Config/routes.json"

    @Option(help: "text, json, or github (workflow annotations on the file's lines).")
    var format: ReportFormat = .text

    func run() throws {
        if format == .text {
            let compiled = try Diagnostics.loadOrExit(manifest, problemsToStandardOutput: true, serving: true)
            let m = compiled.manifest
            let patterns = m.routes.reduce(0) { $0 + $1.patterns.count }
            print("\(manifest): OK: version \(m.version), \(m.routes.count) routes, \(patterns) patterns, etag \(compiled.etag)")
            for warning in compiled.warnings { print("  \(warning)") }
            return
        }
        let report: CheckReport
        do {
            let compiled = try Diagnostics.loadForServing(manifest)
            report = CheckReport(file: manifest, diagnostics: compiled.warnings, version: compiled.manifest.version, etag: compiled.etag)
        } catch {
            switch error {
            case .unreadable:
                printError("switchboard: \(error)")
                throw ExitCode(2)
            case .invalid(_, let manifestError):
                report = CheckReport(file: manifest, diagnostics: manifestError.diagnostics)
            }
        }
        print(format == .json ? report.json : report.githubAnnotations.joined(separator: "\n"), terminator: format == .json ? "" : "\n")
        if !report.valid { throw ExitCode(1) }
    }
}
