import Foundation
import Switchboard
import SwitchboardTooling
import Testing
import TestSupport

/// docs/pipelines.md end to end: a table whose destinations hold every character the cases format
/// gives a meaning to, and any Unicode; `switchboard cases` writes its snapshot, and
/// `validate` reads it back and passes it, locally, with `--server`, and as
/// `POST /v1/validate`; hand-written URLs with spaces and arrows likewise.
@Suite(.serialized)
struct CasesRoundTripTests {
    static let pieces = ["Featured Fairs", "X -> Y", "#", " #", "[", "]", "\"", "\\", "fallback", "external", "é", "e\u{301}",
                         "\u{301}", "\u{A0}", "🎨", "漢字", "\t", "\u{1}", "->", " ", "a", "B"]

    @Test func aSnapshotOfAnyDestinationsIsReadBackAndPasses() throws {
        var rng = SplitMix(seed: 7)
        var routes: [JSONValue] = []
        for i in 0..<120 {
            var destination = (0..<Int.random(in: 1...4, using: &rng)).map { _ in Self.pieces.randomElement(using: &rng)! }.joined()
            if i < Self.pieces.count { destination = Self.pieces[i] }
            routes.append(.object([.init("name", .string("r\(i)")), .init("pattern", .string("/r\(i)/:id")),
                                   .init("destination", .string(destination))]))
        }
        let manifest = JSONValue.object([.init("version", .integer(1)), .init("hosts", .array([.string("example.com")])),
                                         .init("routes", .array(routes))])
        let json = String(decoding: manifest.serialized(), as: UTF8.self)
        let folder = try ManifestFolder(json)
        let path = folder.manifest.path

        let snapshot = try Subprocess.run(Subprocess.switchboard, ["cases", "--config", path])
        #expect(snapshot.status == 0, "\(snapshot.stderr)")
        var text = snapshot.stdout
        // URLs that need quoting, with what they resolve to.
        let compiled = try CompiledManifest(json: Array(json.utf8))
        for url in ["/r1/a b", "/r2/x -> y", "#top", "\"/r3/q\"", "/r4/\u{A0}x", "/r5/%20 #x", "https://example.com/r6/a b c"] {
            let r = compiled.resolve(url)
            let expectation: ValidationCase.Expectation = switch r.status {
            case .matched: .destination(r.destination!)
            case .fallback: .fallback
            case .external: .external
            case .rejected: .rejected
            }
            text += ValidationCase.line(url: url, expectation: expectation) + "\n"
        }
        let cases = try ValidationCase.parse(text)
        #expect(cases.count >= 127)
        let file = folder.url.appendingPathComponent("cases.txt")
        try Data(text.utf8).write(to: file)

        let local = try Subprocess.run(Subprocess.switchboard, ["validate", "--config", path, file.path])
        #expect(local.status == 0, "\(local.stdout)")
        #expect(local.stdout.contains("\(cases.count) passed, 0 failed"), "\(local.stdout.suffix(500))")

        let server = try LiveServer(json)
        let remote = try Subprocess.run(Subprocess.switchboard, ["validate", "--server", "http://127.0.0.1:\(server.port)", file.path])
        #expect(remote.status == 0, "\(remote.stdout.suffix(500)) \(remote.stderr)")
        #expect(remote.stdout.contains("\(cases.count) passed, 0 failed"))
        // A pre-deploy check is no traffic: every route still has no hit.
        func hits() throws -> Int {
            let metrics = try RawHTTP.get("/metrics", port: server.port).text
            return metrics.split(separator: "\n").filter { $0.hasPrefix("switchboard_route_hits_total{") }
                .compactMap { Int($0.split(separator: " ").last ?? "") }.reduce(0, +)
        }
        #expect(try hits() == 0)
        // The same URLs in a batch without `probe` are traffic.
        let urls = JSONValue.array(cases.map { .string($0.url) })
        let batch = try RawHTTP.request("POST", "/v1/resolve", headers: [("Content-Type", "application/json")],
                                        body: JSONValue.object([.init("urls", urls)]).serialized(), port: server.port)
        #expect(batch.status == 200)
        #expect(try hits() > 0)

        let posted = try RawHTTP.request("POST", "/v1/validate", body: Array(text.utf8), port: server.port)
        #expect(posted.status == 200)
        let body = try posted.json()
        #expect(body["passed"] as? Int == cases.count && body["failed"] as? Int == 0, "\(posted.text.prefix(500))")
    }
}
