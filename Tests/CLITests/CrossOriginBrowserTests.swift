import Foundation
import Testing
import TestSupport

/// `serve --cors-origin` in a real browser: switchboard-client, as tsc builds it, on a
/// page of another origin than the server's polls the manifest across origins (its
/// preflighted held poll woken by a reload), and a page of an origin not named cannot
/// read the API (`Tests/Browser/cors.py`, selenium and chromium).
struct CrossOriginBrowserTests {
    @Test func switchboardClientOnAPageOfAnAllowedOriginFollowsTheServer() async throws {
        _ = try Subprocess.tool("chromium", package: "chromium")
        _ = try Subprocess.tool("chromedriver", package: "chromium-driver")
        let tsc = try Subprocess.tool("tsc", package: "node-typescript")
        let python = try Subprocess.python()
        let selenium = try await Subprocess.runOffThePool(python, ["-c", "import selenium"])
        #expect(selenium.status == 0, "selenium is not installed in .build/venv: `bash .ci/install --test` installs it (.ci/pip-packages)")
        guard selenium.status == 0 else { return }

        // Its own build of the client, apart from the one TypeScriptClientTests makes.
        let dist = FileManager.default.temporaryDirectory.appendingPathComponent("switchboard-client-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dist) }
        let build = try await Subprocess.runOffThePool(tsc, ["-p", CLI.packageRoot.appendingPathComponent("clients/typescript").path, "--outDir", dist.path])
        #expect(build.status == 0, "\(build.stdout)\(build.stderr)")
        guard build.status == 0 else { return }

        let pagePort = try Self.freePort()
        let served = try ExplorerPageTests.Served(["--cors-origin", "http://127.0.0.1:\(pagePort)"])
        defer { served.stop() }
        let run = try await Subprocess.runOffThePool(python, [CLI.packageRoot.appendingPathComponent("Tests/Browser/cors.py").path,
                                              served.base, String(pagePort), dist.path, served.manifest.path])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.split(separator: "\n").filter { $0.hasPrefix("ok ") }.count == 5, "\(run.stdout)")
    }

    /// A port nothing listens on now, for the page's own server.
    static func freePort() throws -> Int {
        let python = try Subprocess.tool("python3", package: "python3")
        let probe = try Subprocess.run(python, ["-c", "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"])
        return try #require(Int(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
    }
}
