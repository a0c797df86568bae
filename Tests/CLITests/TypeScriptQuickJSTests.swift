import Foundation
import Testing
import TestSupport

/// switchboard-client off V8: its entry bundled by Debian's esbuild and run on QuickJS (the
/// Python package `quickjs`, a bare ECMAScript engine with no JIT, the stand-in for Hermes)
/// passes every committed conformance vector, the edge cases' included, and refuses every
/// manifest of `manifest-errors.json` as it must (`clients/typescript/test/quickjs`).
struct TypeScriptQuickJSTests {
    @Test func theClientOnQuickJSPassesTheConformanceFiles() async throws {
        let tsc = try Subprocess.tool("tsc", package: "node-typescript")
        let esbuild = try Subprocess.tool("esbuild", package: "esbuild")
        let python = try Subprocess.python()
        let quickjs = try await Subprocess.runOffThePool(python, ["-c", "import quickjs"])
        #expect(quickjs.status == 0, "quickjs is not installed in .build/venv: `bash .ci/install --test` installs it (.ci/pip-packages)")
        guard quickjs.status == 0 else { return }

        // Its own build, laid out as the entry expects (dist/ beside test/quickjs/), apart
        // from the one TypeScriptClientTests makes.
        let package = Subprocess.packageRoot.appendingPathComponent("clients/typescript")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("switchboard-quickjs-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let build = try await Subprocess.runOffThePool(tsc, ["-p", package.path, "--outDir", folder.appendingPathComponent("dist").path])
        try #require(build.status == 0, "\(build.stdout)\(build.stderr)")
        let entry = folder.appendingPathComponent("test/quickjs/entry.js")
        try FileManager.default.createDirectory(at: entry.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: package.appendingPathComponent("test/quickjs/entry.js"), to: entry)
        try FileManager.default.copyItem(at: package.appendingPathComponent("test/manifest-errors.js"),
                                         to: folder.appendingPathComponent("test/manifest-errors.js"))
        let bundle = folder.appendingPathComponent("bundle.js")
        let bundled = try await Subprocess.runOffThePool(esbuild, [entry.path, "--bundle", "--format=iife", "--target=es2020", "--outfile=\(bundle.path)", "--log-level=warning"])
        try #require(bundled.status == 0, "\(bundled.stdout)\(bundled.stderr)")

        let runner = package.appendingPathComponent("test/quickjs/run.py").path
        let conformance = Subprocess.packageRoot.appendingPathComponent("conformance")
        let vectors = try FileManager.default.contentsOfDirectory(atPath: conformance.appendingPathComponent("vectors").path)
            .filter { $0.hasSuffix(".json") }.sorted().map { conformance.appendingPathComponent("vectors/\($0)").path }
        #expect(vectors.contains { $0.hasSuffix("engine-edges.json") })
        let run = try await Subprocess.runOffThePool(python, [runner, bundle.path, "vectors"] + vectors)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let totals = try #require(run.stdout.split(separator: "\n").last)
        #expect(totals.hasSuffix(" passed, 0 failed"), "\(run.stdout)")
        #expect((Int(totals.split(separator: " ")[0]) ?? 0) > 5_000, "\(totals)")
        let errors = try await Subprocess.runOffThePool(python, [runner, bundle.path, "errors", conformance.appendingPathComponent("manifest-errors.json").path])
        #expect(errors.status == 0, "\(errors.stdout)\(errors.stderr)")
    }
}
