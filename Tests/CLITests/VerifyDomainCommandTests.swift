import Foundation
import Testing
import TestSupport

/// `verify-domain` as a process: against Switchboard serving its own files, and against a
/// deliberately broken origin; and the association files `export` and `check` make.
@Suite(.serialized)
struct VerifyDomainCommandTests {
    static let fingerprint = Array(repeating: "14", count: 32).joined(separator: ":")
    static let manifest = """
        {"version": 1, "hosts": ["artsy.net"],
         "apps": {"apple": {"appIDs": ["ABCDE12345.net.artsy.artsy"]},
                  "android": [{"package": "net.artsy.app", "sha256CertFingerprints": ["\(fingerprint)"]}]},
         "routes": [{"name": "artwork", "pattern": "/artwork/:id", "destination": "Artwork"},
                    {"name": "settings", "pattern": "/settings", "destination": "Settings", "universalLink": false}]}
        """

    /// A server on loopback; its port from its log.
    static func serve(_ manifest: String) throws -> (CLI.Running, Int) {
        let server = try CLI.Running(["serve", "--config", manifest, "--port", "0"])
        #expect(server.waitFor("serving on 127.0.0.1:"), "\(server.log)")
        let after = try #require(server.log.split(separator: "serving on 127.0.0.1:").last)
        return (server, try #require(Int(String(after.prefix { $0.isNumber }))))
    }

    @Test func switchboardServingItsOwnFilesPasses() throws {
        let path = try CLI.temporaryFile(Self.manifest)
        let (server, port) = try Self.serve(path)
        defer { _ = server.stop() }
        let origin = "http://127.0.0.1:\(port)"
        let text = try CLI.run(["verify-domain", origin, "--host", "artsy.net", "--config", path])
        #expect(text.status == 0, "\(text.stdout)\(text.stderr)")
        #expect(text.stdout.contains("OK"), "\(text.stdout)")
        // The running server as the source: its manifest and its own files.
        let json = try CLI.run(["verify-domain", origin, "--host", "artsy.net", "--server", origin, "--format", "json"])
        #expect(json.status == 0, "\(json.stdout)\(json.stderr)")
        #expect(json.stdout.hasPrefix(#"{"valid":true"#), "\(json.stdout)")
        let junit = try CLI.run(["verify-domain", origin, "--host", "artsy.net", "--config", path, "--format", "junit"])
        #expect(junit.stdout.contains(#"failures="0""#), "\(junit.stdout)")
        // Plain HTTP is for loopback only, as the verifiers fetch over HTTPS.
        let refused = try CLI.run(["verify-domain", "http://artsy.net", "--config", path])
        #expect(refused.status == 2 && refused.stderr.contains("HTTPS"), "\(refused.stderr)")
    }

    /// What goes wrong in the wild, each named: the wrong content type, a redirect, app IDs
    /// and fingerprints of another app, a route left out, an excluded route opened, a
    /// pattern that opens the app where no route matches; Apple's CDN holding another copy.
    @Test func aBrokenOriginIsReportedProblemByProblem() throws {
        let python = try Subprocess.tool("python3", package: "python3")
        let script = #"""
        import http.server, json, sys
        aasa = json.dumps({"applinks": {"details": [{"appIDs": ["ZZZZZ99999.net.other"], "components": [{"/": "/settings"}, {"/": "/nowhere/*"}]}]}}).encode()
        cdn = json.dumps({"applinks": {"details": [{"appIDs": ["ABCDE12345.net.artsy.artsy"], "components": []}]}}).encode()
        links = json.dumps([{"relation": ["delegate_permission/common.handle_all_urls"], "target": {"namespace": "android_app", "package_name": "net.artsy.app", "sha256_cert_fingerprints": ["AA:" * 31 + "AA"]}}]).encode()
        class H(http.server.BaseHTTPRequestHandler):
            def answer(self, status, body, kind, extra=()):
                self.send_response(status)
                self.send_header("Content-Type", kind)
                for name, value in extra: self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            def do_GET(self):
                if self.path == "/.well-known/apple-app-site-association": self.answer(200, aasa, "text/html")
                elif self.path == "/.well-known/assetlinks.json" and self.headers.get("Host") == "artsy.net": self.answer(200, links, "application/json")
                elif self.path == "/.well-known/assetlinks.json": self.answer(301, b"", "text/plain", [("Location", "https://www.artsy.net/.well-known/assetlinks.json")])
                elif self.path == "/a/v1/artsy.net": self.answer(200, cdn, "application/json")
                else: self.answer(404, b"", "text/plain")
            def log_message(self, *args): pass
        server = http.server.HTTPServer(("127.0.0.1", 0), H)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """#
        let process = Process()
        process.executableURL = python
        process.arguments = ["-c", script]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        // SIGKILL: a child of the test process inherits its signal mask, SIGTERM blocked.
        defer { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
        let line = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        let port = try #require(Int(line.trimmingCharacters(in: .whitespacesAndNewlines)), "\(line)")
        let path = try CLI.temporaryFile(Self.manifest)
        let origin = "http://127.0.0.1:\(port)"
        let report = try Subprocess.run(CLI.executable, ["verify-domain", origin, "--host", "artsy.net", "--config", path, "--format", "json", "--apple-cdn"],
                                        environment: ["SWITCHBOARD_APPLE_CDN": origin])
        #expect(report.status == 1, "\(report.stdout)\(report.stderr)")
        let document = try JSONSerialization.jsonObject(with: Data(report.stdout.utf8)) as? [String: Any]
        let origins = try #require(document?["origins"] as? [[String: Any]])
        let kinds = Set((origins.first?["problems"] as? [[String: Any]] ?? []).compactMap { $0["kind"] as? String })
        #expect(kinds == ["content-type", "app-ids", "not-covered", "excluded-opens", "unmatched-pattern", "fingerprints", "cdn-differs"],
                "\(report.stdout)")
        // For www.artsy.net the origin answers assetlinks.json with a redirect.
        let both = try CLI.temporaryFile(Self.manifest.replacingOccurrences(of: #"["artsy.net"]"#, with: #"["artsy.net", "www.artsy.net"]"#))
        let redirect = try CLI.run(["verify-domain", origin, "--host", "www.artsy.net", "--config", both, "--format", "github"])
        #expect(redirect.status == 1)
        #expect(redirect.stdout.contains("::error title=verify-domain www.artsy.net%3A redirect::http://127.0.0.1:\(port)/.well-known/assetlinks.json: answered 301"),
                "\(redirect.stdout)")
    }

    @Test func exportAndCheckMakeTheFilesTheServerServes() throws {
        let path = try CLI.temporaryFile(Self.manifest)
        let aasa = try CLI.run(["export", "aasa", "--config", path])
        #expect(aasa.status == 0, "\(aasa.stderr)")
        #expect(aasa.stdout.contains(#""appIDs":["ABCDE12345.net.artsy.artsy"]"#), "\(aasa.stdout)")
        let links = CLI.temporaryRoot.appendingPathComponent("assetlinks-\(UUID().uuidString).json").path
        let appLinks = try CLI.run(["export", "app-links", "--config", path, "--assetlinks", links])
        #expect(appLinks.status == 0, "\(appLinks.stderr)")
        #expect(appLinks.stdout.contains("net.artsy.app"))
        let written = try String(contentsOfFile: links, encoding: .utf8)
        #expect(written.contains(#""package_name":"net.artsy.app""#) && written.contains(Self.fingerprint), "\(written)")
        // A manifest whose AASA would pass Apple's 128 KB: check refuses it, as serve does.
        let routes = (0..<2_500).map { #"{"name": "r\#($0)", "pattern": "/section-\#($0)/:id/a-long-segment-name-\#($0)", "destination": "D"}"# }
        let large = try CLI.temporaryFile(#"{"version": 1, "hosts": ["artsy.net"], "apps": {"apple": {"appIDs": ["ABCDE12345.net.artsy.artsy"]}}, "routes": ["#
                                          + routes.joined(separator: ",") + "]}")
        let checked = try CLI.run(["check", large])
        #expect(checked.status == 1)
        #expect(checked.stdout.contains("error[aasa-too-large] /apps/apple"), "\(checked.stdout.prefix(500))")
    }
}
