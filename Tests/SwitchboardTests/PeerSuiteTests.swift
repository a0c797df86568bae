import Foundation
import Testing
@testable import Switchboard

/// The published unit tests of the routers Switchboard replaces, as tables of manifest,
/// URL and expected result (`Peers/*.json`). Expected results are Switchboard's; where
/// they differ from the peer's on purpose, the case says how in `differs`.
struct PeerSuiteTests {
    struct Case: Sendable, CustomStringConvertible {
        let peer: String
        let test: String
        /// The suite's manifest, version added.
        let manifest: [UInt8]
        let expansions: Int?
        let url: String
        let status: String
        let route: String?
        /// The expected params as JSON, when the case names them.
        let params: Data?
        var description: String { "\(peer) \(test): \(url)" }
    }

    static func cases(_ peer: String) -> [Case] {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Peers/\(peer).json")
        guard let data = try? Data(contentsOf: file),
              let table = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let suites = table["suites"] as? [[String: Any]] else { return [] }
        return suites.flatMap { suite -> [Case] in
            var manifest = suite["manifest"] as? [String: Any] ?? [:]
            manifest["version"] = 1
            let bytes = (try? JSONSerialization.data(withJSONObject: manifest)).map { [UInt8]($0) } ?? []
            return (suite["cases"] as? [[String: Any]] ?? []).map { c in
                Case(peer: peer, test: suite["test"] as? String ?? "", manifest: bytes, expansions: suite["expansions"] as? Int,
                     url: c["url"] as? String ?? "", status: c["status"] as? String ?? "matched", route: c["route"] as? String,
                     params: c["params"].flatMap { try? JSONSerialization.data(withJSONObject: $0) })
            }
        }
    }

    @Test func theTablesAreThere() {
        #expect(Self.cases("JLRoutes").count >= 60)
        #expect(Self.cases("URLNavigator").count >= 12)
        #expect(Self.cases("JLRoutes").contains { $0.test == "testOptionalRoutesAtStart" })
    }

    @Test(arguments: cases("JLRoutes") + cases("URLNavigator"))
    func resolvesAsTheTableSays(_ c: Case) throws {
        let compiled = try CompiledManifest(json: c.manifest)
        if let expansions = c.expansions {
            #expect(compiled.manifest.routes[0].patterns[0].expansions.count == expansions)
        }
        let result = try #require(try JSONSerialization.jsonObject(with: Data(compiled.resultJSON(compiled.resolve(c.url)))) as? [String: Any])
        #expect(result["status"] as? String == c.status, "\(c): \(result)")
        if let route = c.route {
            #expect((result["route"] as? [String: Any])?["name"] as? String == route, "\(c): \(result)")
        }
        if let params = c.params {
            let expected = try #require(try JSONSerialization.jsonObject(with: params) as? [String: Any])
            #expect(NSDictionary(dictionary: result["params"] as? [String: Any] ?? [:]).isEqual(to: expected), "\(c): \(result)")
        }
    }
}
