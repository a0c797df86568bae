import Foundation
import Testing
import TestSupport

/// `switchboard_route_hits_total{route, outcome}` counts what a burst of resolves did,
/// through every way of resolving (GET, batches), with every route of the manifest shown
/// (dead ones at 0), carried over a reload by route name.
@Suite struct RouteHitsMetricsTests {
    static func hits(_ port: Int) throws -> [String: Int] {
        let text = try RawHTTP.get("/metrics", port: port).text
        var out: [String: Int] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("switchboard_route_hits_total{") {
            let labels = line.dropFirst("switchboard_route_hits_total{".count).prefix { $0 != "}" }
            out[String(labels)] = Int(line.split(separator: " ").last!)
        }
        return out
    }

    @Test func aBurstOfResolvesIsCountedByRoute() throws {
        let live = try LiveServer()
        let before = try Self.hits(live.port)
        #expect(before.count >= 50, "every route of the bundled manifest has a series")
        #expect(before.values.allSatisfy { $0 == 0 })
        #expect(before["route=\"legacy-works\",outcome=\"redirected\""] == 0)
        for i in 0..<40 { _ = try RawHTTP.get("/v1/resolve?url=/artwork/work-\(i)", port: live.port) }
        for _ in 0..<7 { _ = try RawHTTP.get("/v1/resolve?url=/works/old", port: live.port) }
        for _ in 0..<5 { _ = try RawHTTP.get("/v1/resolve?url=/nowhere/at/all", port: live.port) }
        let batch = #"{"urls": ["/artist/banksy", "/artist/banksy/works", "/artwork/x", "mailto:a@b.c"]}"#
        let posted = try RawHTTP.request("POST", "/v1/resolve", body: Array(batch.utf8), port: live.port)
        #expect(posted.status == 200)
        let after = try Self.hits(live.port)
        #expect(after["route=\"artwork\",outcome=\"matched\""] == 40 + 7 + 1)
        #expect(after["route=\"legacy-works\",outcome=\"redirected\""] == 7)
        #expect(after["route=\"artist\",outcome=\"matched\""] == 2)
        let counted = after.values.reduce(0, +)
        #expect(counted == 48 + 7 + 2, "the fallback and external URLs count in switchboard_resolve_outcomes_total, not here")

        // A reload keeps each route's count by name; a route the new manifest drops is gone.
        var document = try #require(try JSONSerialization.jsonObject(with: Data(Manifests.bundled.utf8)) as? [String: Any])
        document["version"] = 2
        document["routes"] = (document["routes"] as! [[String: Any]]).filter { $0["name"] as? String != "artist" }
        try live.folder.replace(String(decoding: try JSONSerialization.data(withJSONObject: document), as: UTF8.self))
        #expect(live.server.reload().hasPrefix("reloaded version 2"))
        let reloaded = try Self.hits(live.port)
        #expect(reloaded["route=\"artwork\",outcome=\"matched\""] == 48)
        #expect(reloaded["route=\"artist\",outcome=\"matched\""] == nil)
    }
}
