import Foundation
import Testing
import TestSupport

/// SwitchboardClient on Apple's platforms, checked where no Apple toolchain runs: its
/// closure holds no C target, no unguarded Linux-only import or call, and uses nothing of
/// the standard library above the floors Package.swift declares
/// (`Tests/Portability/apple-floors.py` reads what the compiler for those platforms would).
struct PortabilityTests {
    private static let script = Subprocess.packageRoot.appendingPathComponent("Tests/Portability/apple-floors.py").path

    @Test func theClientsClosureMeetsApplesFloors() throws {
        let python = try Subprocess.tool("python3", package: "python3")
        let run = try Subprocess.run(python, [Self.script])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("4 targets (SwitchboardClient, SystemSupport, Switchboard, RouteMatching;"), "\(run.stdout)")
        #expect(run.stdout.hasSuffix(": 0 findings\n"), "\(run.stdout)")
    }

    /// The checker finds what it must: a probe file with one of each.
    @Test func theCheckFindsLinuxOnlyCodeAndDeclarationsAboveTheFloors() throws {
        let python = try Subprocess.tool("python3", package: "python3")
        let run = try Subprocess.run(python, [Self.script, "--probe", "Tests/Portability/probe.swift"])
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
}
