import Foundation
import Testing
import TestSupport

/// SwitchboardKit on Apple's platforms, checked where no Apple toolchain runs: its
/// closure holds no C target, no unguarded Linux-only import or call, and uses nothing of
/// the standard library above the floors Package.swift declares
/// (`Tests/Portability/apple-floors.py` reads what the compiler for those platforms would).
struct PortabilityTests {
    private static let script = Subprocess.packageRoot.appendingPathComponent("Tests/Portability/apple-floors.py").path

    @Test func theClientsClosureMeetsApplesFloors() async throws {
        let python = try Subprocess.tool("python3", package: "python3")
        let run = try await Subprocess.runOffThePool(python, [Self.script])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("4 targets (SwitchboardKit, SystemSupport, Switchboard, RouteMatching;"), "\(run.stdout)")
        #expect(run.stdout.hasSuffix(": 0 findings\n"), "\(run.stdout)")
    }

    /// The checker finds what it must: a probe file with one of each.
    @Test func theCheckFindsLinuxOnlyCodeAndDeclarationsAboveTheFloors() async throws {
        let python = try Subprocess.tool("python3", package: "python3")
        let run = try await Subprocess.runOffThePool(python, [Self.script, "--probe", "Tests/Portability/probe.swift"])
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        for finding in [
            "probe.swift:8: import Glibc outside an #if with a Darwin branch",
            "probe.swift:12: calls malloc_trim",
            "probe.swift:14: span (s:Sa4spans4SpanVyxGvp) needs iOS 26.0 (floor 18.0)",
            "probe.swift:14: span (s:SS8UTF8ViewV4spans4SpanVys5UInt8VGvp) needs iOS 26.0 (floor 18.0)",
        ] {
            #expect(run.stdout.contains(finding), "\(finding)\n\(run.stdout)")
        }
        #expect(run.stdout.hasSuffix(": 4 findings\n"), "\(run.stdout)")
    }

    /// What an app links is the engine alone: no module of the closure imports the
    /// tooling, the server or the daemon, and what it makes public (what an app outside
    /// this package sees, read from the symbol graph the compiler writes) stays small.
    @Test func theClientsClosureIsTheEngineAloneWithASmallPublicSurface() async throws {
        let closure = ["SwitchboardKit", "Switchboard", "RouteMatching", "SystemSupport"]
        let sources = Subprocess.packageRoot.appendingPathComponent("Sources")
        for module in closure {
            let folder = sources.appendingPathComponent(module)
            let files = try FileManager.default.subpathsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
            for file in files {
                let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                for other in ["SwitchboardTooling", "SwitchboardServer", "MicroHTTPD", "ServerSystem", "Gzip"] {
                    #expect(!text.contains("import \(other)"), "\(module)/\(file) imports \(other)")
                }
            }
        }
        let swift = try Subprocess.tool("swift", package: "the Swift toolchain")
        let modules = Subprocess.switchboard.deletingLastPathComponent().appendingPathComponent("Modules")
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("symbols-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: output) }
        #if arch(arm64)
        let target = "aarch64-unknown-linux-gnu"
        #else
        let target = "x86_64-unknown-linux-gnu"
        #endif
        var total = 0
        var counts: [String] = []
        for module in closure {
            let run = try await Subprocess.runOffThePool(swift, ["symbolgraph-extract", "-module-name", module, "-I", modules.path,
                                                 "-target", target, "-minimum-access-level", "public",
                                                 "-skip-synthesized-members", "-output-dir", output.path])
            try #require(run.status == 0, "\(run.stderr)")
            let data = try Data(contentsOf: output.appendingPathComponent("\(module).symbols.json"))
            let graph = try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
            let symbols = try #require(graph["symbols"] as? [Any])
            counts.append("\(module) \(symbols.count)")
            total += symbols.count
        }
        // Every public type, member, enum case and protocol requirement counts. An app's
        // API is the client, the resolution and what it is made of; the rest is `package`.
        #expect(total <= 300, "\(counts)")
        #expect(counts.contains("RouteMatching 0") && counts.contains("SystemSupport 0"), "\(counts)")
    }
}
