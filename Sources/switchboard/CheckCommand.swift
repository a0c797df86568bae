import ArgumentParser
import Switchboard

struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate a manifest and print every problem.",
        discussion: "Exit status: 0 valid (warnings allowed), 1 problems found, 2 the file cannot be read."
    )

    @Argument(help: "The manifest to check.")
    var manifest: String = "Config/routes.json"

    func run() throws {
        let compiled = try Diagnostics.loadOrExit(manifest, problemsToStandardOutput: true)
        let m = compiled.manifest
        let patterns = m.routes.reduce(0) { $0 + $1.patterns.count }
        print("\(manifest): OK: version \(m.version), \(m.routes.count) routes, \(patterns) patterns, etag \(compiled.etag)")
        for warning in compiled.warnings { print("  \(warning)") }
    }
}
