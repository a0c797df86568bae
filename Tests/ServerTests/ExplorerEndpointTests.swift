import Foundation
import Testing
@testable import SwitchboardServer

/// `GET /` and `/ui/...` over a real socket: the embedded files, their policy headers,
/// gzip and ETags, methods, and `serve --no-ui`; `GET /v1/routes`, `POST /v1/validate`
/// and `explain=near`, which the page reads.
@Suite(.serialized)
final class ExplorerEndpointTests {
    let live: LiveServer
    var port: Int { live.port }

    init() throws {
        live = try LiveServer()
    }

    @Test func thePageAndItsFilesComeFromTheBinaryWithTheirPolicy() throws {
        let page = try RawHTTP.get("/", port: port)
        #expect(page.status == 200)
        #expect(page.header("Content-Type") == "text/html; charset=utf-8")
        #expect(page.header("Content-Security-Policy")?.hasPrefix("default-src 'self'") == true)
        #expect(page.header("X-Content-Type-Options") == "nosniff")
        let html = String(decoding: page.body, as: UTF8.self)
        #expect(html.contains(#"<script src="/ui/explorer.js" defer></script>"#))
        #expect(!html.contains("<script>") && !html.contains("style="), "nothing inline")
        #expect(!html.contains(#"src="http"#) && !html.contains(#"href="http"#) && !html.contains("//cdn"), "nothing from elsewhere")
        let script = try RawHTTP.get("/ui/explorer.js", port: port)
        #expect(script.status == 200 && script.header("Content-Type") == "text/javascript; charset=utf-8")
        #expect(!String(decoding: script.body, as: UTF8.self).contains("innerHTML"), "manifest data is never markup")
        #expect(try RawHTTP.get("/ui/explorer.css", port: port).header("Content-Type") == "text/css; charset=utf-8")
        // A few tens of KB, gzipped like the manifest, revalidated by ETag.
        let total = [page, script].reduce(0) { $0 + $1.body.count }
        #expect(total < 40_000)
        let zipped = try RawHTTP.get("/ui/explorer.js", headers: [("Accept-Encoding", "gzip")], port: port)
        #expect(zipped.header("Content-Encoding") == "gzip" && zipped.body.count < script.body.count)
        let etag = try #require(script.header("ETag"))
        #expect(try RawHTTP.get("/ui/explorer.js", headers: [("If-None-Match", etag)], port: port).status == 304)
    }

    @Test func unknownFilesAndOtherMethodsAreRefused() throws {
        #expect(try RawHTTP.get("/ui/nope.js", port: port).status == 404)
        let post = try RawHTTP.request("POST", "/", port: port)
        #expect(post.status == 405 && post.header("Allow") == "GET, HEAD")
        #expect(try RawHTTP.request("DELETE", "/v1/routes", port: port).status == 405)
        #expect(try RawHTTP.get("/v1/validate", port: port).status == 405)
    }

    @Test func noUIServesTheAPIAlone() throws {
        let off = try LiveServer(ui: false)
        #expect(try RawHTTP.get("/", port: off.port).status == 404)
        #expect(try RawHTTP.get("/ui/explorer.js", port: off.port).status == 404)
        #expect(try RawHTTP.get("/v1/routes", port: off.port).status == 200)
    }

    @Test func routesListsTheTableInPrecedenceOrder() throws {
        let r = try RawHTTP.get("/v1/routes", port: port)
        #expect(r.status == 200)
        let body = try r.json()
        let routes = try #require(body["routes"] as? [[String: Any]])
        #expect(routes.count == 66)
        #expect(routes.first?["host"] as? String == "live.artsy.net")
        #expect(routes.map { $0["order"] as? Int } == Array(1...66))
        let conversations = routes.filter { $0["path"] as? String == "/user/conversations/:id" }.compactMap { $0["route"] as? String }
        #expect(conversations == ["conversation", "conversation-web"])
        // Built once per manifest, gzipped when asked, the same bytes every time.
        #expect(try RawHTTP.get("/v1/routes", port: port).body == r.body)
        let zipped = try RawHTTP.get("/v1/routes", headers: [("Accept-Encoding", "gzip")], port: port)
        #expect(zipped.header("Content-Encoding") == "gzip" && zipped.body.count < r.body.count)
    }

    @Test func validateTakesACasesTextAndReportsEachCase() throws {
        let text = "/artist/x -> Artist\n/user/conversations/3 [appVersion=7.1.0] -> Conversation\n"
        let r = try RawHTTP.request("POST", "/v1/validate", body: Array(text.utf8), port: port)
        #expect(r.status == 200)
        let body = try r.json()
        #expect(body["passed"] as? Int == 1 && body["failed"] as? Int == 1)
        let failed = try #require((body["cases"] as? [[String: Any]])?.last)
        #expect(failed["outcome"] as? String == "matched route conversation-web -> WebView")
        #expect((failed["explanation"] as? [String])?.contains("tried conversation /user/conversations/:id: refused (since 7.2.0 > appVersion 7.1.0)") == true)
        #expect((body["coverage"] as? [String: Any])?["total"] as? Int == 59)
        let bad = try RawHTTP.request("POST", "/v1/validate", body: Array("/a -> A -> B\n".utf8), port: port)
        let line = try bad.json()["line"] as? Int
        #expect(bad.status == 400 && line == 1)
    }

    @Test func nearMissesNameTheFirstDifference() throws {
        let r = try RawHTTP.get("/v1/resolve?url=/artist/banksy/work&explain=near", port: port)
        let explain = try #require(try r.json()["explain"] as? [String: Any])
        let near = try #require(explain["near"] as? [[String: Any]])
        #expect(near.count <= 10)
        #expect(near.contains { $0["route"] as? String == "artist-auction-results" && $0["reason"] as? String == #"segment 3: "work" is not "auction-results""# })
        #expect(near.contains { $0["route"] as? String == "live-auction" && $0["reason"] as? String == "host: only on live.artsy.net" })
        // Never a route the search tried.
        #expect(!near.contains { $0["route"] as? String == "artist" && $0["pattern"] as? String == "/artist/:id(/:tab)" })
        let gated = try RawHTTP.get("/v1/resolve?url=/artist-seriez/x&explain=near", port: port)
        let misses = try #require((try gated.json()["explain"] as? [String: Any])?["near"] as? [[String: Any]])
        // The closest first: one letter off before other literals.
        let first = try #require(misses.first)
        #expect(first["route"] as? String == "artist-series" && first["distance"] as? Int == 1)
        #expect(first["reason"] as? String == #"segment 1: "artist-seriez" is not "artist-series""#)
    }
}
