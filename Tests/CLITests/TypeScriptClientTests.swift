import Foundation
import Testing
import TestSupport

/// The TypeScript client's own tests (`clients/typescript/test`, on Node's test runner),
/// run from here so that the README's one test command runs every test: the package is
/// built with Debian's `tsc`, then its engine is held to the committed conformance files,
/// its decoder to this build's `switchboard check` on random tables, and its updater is
/// driven against this build's `switchboard serve`.
struct TypeScriptClientTests {
    @Test func theTypeScriptClientBuildsAndPassesItsTests() async throws {
        let tsc = try Subprocess.tool("tsc", package: "node-typescript")
        let node = try Subprocess.tool("node", package: "nodejs")
        let package = Subprocess.packageRoot.appendingPathComponent("clients/typescript")
        // The package's build: CommonJS and the ES module build (build.js runs tsc twice).
        let build = try await Subprocess.runOffThePool(node, [package.appendingPathComponent("build.js").path], environment: ["TSC": tsc.path])
        #expect(build.status == 0, "node clients/typescript/build.js:\n\(build.stdout)\(build.stderr)")
        guard build.status == 0 else { return }
        let tests = ["engine", "differential", "client", "scenarios", "react", "imports", "package", "readme"]
            .map { package.appendingPathComponent("test/\($0).test.js").path }
        // Debian's Node packages (React, jsdom) where a Node that is not Debian's also finds them.
        let nodePath = (ProcessInfo.processInfo.environment["NODE_PATH"].map { [$0] } ?? []) + ["/usr/share/nodejs", "/usr/lib/nodejs"]
        let run = try await Subprocess.runOffThePool(node, ["--test"] + tests, environment: [
            "SWITCHBOARD_BIN": Subprocess.switchboard.path, "NODE_PATH": nodePath.joined(separator: ":"),
        ])
        // TAP: on failure, the failing tests and their diagnostics, then the totals.
        let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let failures = lines.enumerated().filter { $0.element.contains("not ok") }.map { i, _ in
            lines[i..<min(i + 30, lines.count)].joined(separator: "\n")
        }
        #expect(run.status == 0, "node --test:\n\(failures.joined(separator: "\n"))\n\(lines.suffix(10).joined(separator: "\n"))\n\(run.stderr)")
        #expect(run.stdout.contains("# fail 0"))
    }
}
