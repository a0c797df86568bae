import Foundation
import Testing
import TestSupport

/// The route explorer in a real browser: Debian's chromium, driven through
/// chromium-driver by `Tests/Browser/explorer.py` (selenium), against a copy of the
/// built binary started from an empty folder (as the Docker image runs it: the page
/// must come from the binary, not from files beside it).
@Suite(.serialized)
struct ExplorerPageTests {
    /// Screenshots go here; `SWITCHBOARD_SCREENSHOTS=docs` writes the README's.
    static var screenshots: URL {
        if let folder = ProcessInfo.processInfo.environment["SWITCHBOARD_SCREENSHOTS"] {
            return URL(fileURLWithPath: folder, relativeTo: CLI.packageRoot)
        }
        return FileManager.default.temporaryDirectory.appendingPathComponent("switchboard-screenshots-\(UUID().uuidString)")
    }

    /// A copy of the binary in an empty folder, serving a copy of the bundled manifest.
    struct Served {
        let server: CLI.Running
        let base: String
        let manifest: URL
        let folder: URL

        init(_ extra: [String] = []) throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("switchboard-explorer-\(UUID().uuidString)")
            let bin = folder.appendingPathComponent("bin"), config = folder.appendingPathComponent("config")
            for dir in [bin, config] { try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true) }
            let binary = bin.appendingPathComponent("switchboard")
            try FileManager.default.copyItem(at: CLI.executable, to: binary)
            manifest = config.appendingPathComponent("routes.json")
            try FileManager.default.copyItem(at: CLI.packageRoot.appendingPathComponent("Config/routes.json"), to: manifest)
            server = try CLI.Running(["serve", "--config", manifest.path, "--port", "0"] + extra, executable: binary, in: bin)
            guard server.waitFor("serving on 127.0.0.1:"), let tail = server.log.split(separator: "serving on 127.0.0.1:").last,
                  let port = Int(String(tail.prefix { $0.isNumber })) else {
                throw CocoaError(.fileReadUnknown, userInfo: ["log": server.log])
            }
            base = "http://127.0.0.1:\(port)"
        }

        func stop() {
            _ = server.stop()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    @Test func thePageResolvesExplainsListsAndFollowsReloadsInARealBrowser() async throws {
        _ = try Subprocess.tool("chromium", package: "chromium")
        _ = try Subprocess.tool("chromedriver", package: "chromium-driver")
        let python = try Subprocess.python()
        let selenium = try Subprocess.run(python, ["-c", "import selenium"])
        #expect(selenium.status == 0, "selenium is not installed in .build/venv: `bash .ci/install --test` installs it (.ci/pip-packages)")
        guard selenium.status == 0 else { return }

        let served = try Served()
        defer { served.stop() }
        let xss = served.folder.appendingPathComponent("xss.json")
        try FileManager.default.copyItem(at: CLI.packageRoot.appendingPathComponent("Tests/Browser/xss-manifest.json"), to: xss)
        let shots = Self.screenshots
        try FileManager.default.createDirectory(at: shots, withIntermediateDirectories: true)
        let run = try await Subprocess.runOffThePool(python, [CLI.packageRoot.appendingPathComponent("Tests/Browser/explorer.py").path,
                                              served.base, served.manifest.path, xss.path, shots.path])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        // Every check the script makes, each reported as it passes.
        let passed = run.stdout.split(separator: "\n").filter { $0.hasPrefix("ok ") }
        #expect(passed.count >= 36, "\(run.stdout)")
        for name in ["explorer-resolve.png", "explorer-table.png", "explorer-batch.png", "explorer-phone.png"] {
            #expect(FileManager.default.fileExists(atPath: shots.appendingPathComponent(name).path), "\(name)")
        }
    }
}
