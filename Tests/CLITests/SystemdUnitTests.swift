import Foundation
import Testing
import TestSupport

/// `Config/systemd/switchboard.service`: accepted by `systemd-analyze verify` with the
/// built binary in place of the installed one, and its command line serves.
@Suite(.serialized)
struct SystemdUnitTests {
    static let unit = (try? String(contentsOf: CLI.packageRoot.appendingPathComponent("Config/systemd/switchboard.service"), encoding: .utf8)) ?? ""

    /// The values of `key` in the unit, in order.
    static func values(_ key: String) -> [String] {
        unit.split(separator: "\n").compactMap { line in
            line.hasPrefix(key + "=") ? String(line.dropFirst(key.count + 1)) : nil
        }
    }

    static var execStart: [String] { (values("ExecStart").first ?? "").split(separator: " ").map(String.init) }

    @Test func systemdAnalyzeVerifiesTheUnit() throws {
        let analyze = try Subprocess.tool("systemd-analyze", package: "systemd")
        let installed = try #require(Self.execStart.first)
        let file = URL(fileURLWithPath: try CLI.temporaryFile("", name: "switchboard.service"))
        try Self.unit.replacingOccurrences(of: installed, with: CLI.executable.path).write(to: file, atomically: true, encoding: .utf8)
        let verify = try Subprocess.run(analyze, ["verify", file.path])
        #expect(verify.status == 0 && verify.stderr.isEmpty && verify.stdout.isEmpty, "\(verify.stdout)\(verify.stderr)")
    }

    @Test func theUnitRunsAsAHardenedDynamicUserWithRoomForConnections() {
        #expect(Self.values("ExecReload") == ["/bin/kill -HUP $MAINPID"])
        #expect(Self.values("DynamicUser") == ["yes"])
        #expect(Self.values("ProtectSystem") == ["strict"])
        #expect(Self.values("NoNewPrivileges") == ["yes"])
        #expect(Self.values("ConfigurationDirectory") == ["switchboard"])
        let files = Int(Self.values("LimitNOFILE").first ?? "") ?? 0
        #expect(files >= 20_000, "LimitNOFILE should leave room for thousands of held polls and streams (connections are fitted to it)")
        let stop = Int(Self.values("TimeoutStopSec").first ?? "") ?? 0
        #expect(stop > 15, "the server drains 5 s, then takes up to 10 s to finish in-flight requests")
    }

    @Test func theUnitsCommandLineServesTheManifestUnderEtc() throws {
        var arguments = Array(Self.execStart.dropFirst())
        let config = try #require(arguments.firstIndex(of: "--config"))
        #expect(arguments[config + 1] == "/etc/switchboard/routes.json")
        arguments[config + 1] = CLI.packageRoot.appendingPathComponent("Config/routes.json").path
        let port = try #require(arguments.firstIndex(of: "--port"))
        arguments[port + 1] = "0"
        let served = try CLI.Running(arguments)
        #expect(served.waitFor("serving on 127.0.0.1:"), "\(served.log)")
        // SIGHUP, what ExecReload sends, reloads rather than stops.
        kill(served.process.processIdentifier, SIGHUP)
        served.waitFor("SIGHUP")
        #expect(served.process.isRunning, "\(served.log)")
        #expect(served.stop() == 0)
    }
}
