import Foundation
import Testing
@testable import SwitchboardServer

@Suite(.serialized)
final class ResolveEndpointTests {
    let live: LiveServer
    var server: SwitchboardServer { live.server }

    init() throws {
        live = try LiveServer()
    }

    @Test func resolvesAURLPassedInTheQuery() throws {
        let r = try RawHTTP.get("/v1/resolve?url=https%3A%2F%2Fwww.artsy.net%2Fartwork%2Fandy-warhol-soup%3Fref%3Dhome%23top", port: server.port)
        #expect(r.status == 200)
        #expect(r.header("Content-Type") == "application/json")
        #expect(r.text.hasPrefix(#"{"url":"https://www.artsy.net/artwork/andy-warhol-soup?ref=home#top","status":"matched","route":{"name":"artwork","pattern":"/artwork/:id"},"destination":"Artwork","params":{"id":"andy-warhol-soup","ref":"home"},"presentation":{"style":"push"},"fragment":"top","manifest":{"version":1,"etag":"\"sha256-"#))
    }

    @Test func decodesTheURLParameterExactlyOnce() throws {
        // %252F in the query is %2F in the URL: one param value a/b, not two segments.
        let r = try RawHTTP.get("/v1/resolve?url=https%3A%2F%2Fartsy.net%2Fartist%2Fa%252Fb", port: server.port)
        let json = try r.json()
        #expect(json["url"] as? String == "https://artsy.net/artist/a%2Fb")
        #expect((json["params"] as? [String: String])?["id"] == "a/b")
        // A raw + in the query is a space (form encoding): the URL has a space and is rejected.
        let plus = try RawHTTP.get("/v1/resolve?url=/artist/a+b", port: server.port).json()
        #expect(plus["status"] as? String == "rejected")
        #expect(try RawHTTP.get("/v1/resolve?url=/artist/a%2Bb", port: server.port).json()["status"] as? String == "matched")
    }

    @Test func readsKeysAsFormEncodingDecodesThem() throws {
        // Keys are decoded too (%75rl is url, app%56ersion is appVersion, a+b is "a b");
        // a value keeps every `=` after the first; unknown keys are ignored.
        let r = try RawHTTP.get("/v1/resolve?a+b=1&%75rl=/artist/a%3Db&app%56ersion=7.1.0&x", port: server.port).json()
        #expect(r["url"] as? String == "/artist/a=b")
        #expect((r["params"] as? [String: String])?["id"] == "a=b")
        let versioned = try RawHTTP.get("/v1/resolve?url=/user/conversations/12&app%56ersion=7.1.0", port: server.port).json()
        #expect((versioned["route"] as? [String: String])?["name"] == "conversation-web")
        let twice = try RawHTTP.get("/v1/resolve?url=/a&u%72l=/b", port: server.port)
        #expect(twice.status == 400)
        // The url value is decoded as it is read: `+` is a space, an encoded `&` stays in
        // it, the item ends at a raw `&`; every other item is still checked, before and
        // after it, even one with an empty key.
        // (A raw space in the URL it gives is then refused, as docs/manifest.md says.)
        let spaced = try RawHTTP.get("/v1/resolve?url=/search%3Fq%3Dandy+warhol%26entity%3Dartist&explain=0", port: server.port).json()
        #expect(spaced["url"] as? String == "/search?q=andy warhol&entity=artist")
        #expect(spaced["reason"] as? String == "whitespace")
        let plus = try RawHTTP.get("/v1/resolve?url=/search%3Fq%3Dandy%2Bwarhol%26entity%3Dartist&explain=0", port: server.port).json()
        #expect((plus["params"] as? [String: Any])?["q"] as? String == "andy warhol")
        #expect((plus["params"] as? [String: Any])?["entity"] as? String == "artist")
        for query in ["url=/a&x=%ZZ", "=%ZZ&url=/a", "x=%4&url=/a", "url=/a%2"] {
            let refused = try RawHTTP.get("/v1/resolve?" + query, port: server.port)
            #expect(refused.status == 400 && refused.text.contains("malformed query string"), "\(query)")
        }
        // A url key without `=` gives the empty URL: the root.
        let bare = try RawHTTP.get("/v1/resolve?url", port: server.port).json()
        #expect(bare["url"] as? String == "" && (bare["route"] as? [String: String])?["name"] == "home")
    }

    /// An explanation of a long URL is made off the daemon's threads (as expensive work)
    /// and says what one made inline says: the same answer past the threshold as below it.
    @Test func aLongURLIsExplainedOffTheDaemonsThreadsAlike() throws {
        let short = "/artist/" + String(repeating: "a", count: SwitchboardAPI.inlineExplainedURLBytes - 20)
        let long = "/artist/" + String(repeating: "a", count: 8000)
        let inline = try RawHTTP.get("/v1/resolve?url=\(short)&explain=1", port: server.port).json()
        let offloaded = try RawHTTP.get("/v1/resolve?url=\(long)&explain=1", port: server.port)
        #expect(offloaded.status == 200)
        let answer = try offloaded.json()
        #expect((answer["route"] as? [String: String])?["name"] == (inline["route"] as? [String: String])?["name"])
        let tried = (answer["explain"] as? [String: Any])?["tried"] as? [[String: String]]
        let triedInline = (inline["explain"] as? [String: Any])?["tried"] as? [[String: String]]
        #expect(tried?.map { $0["route"] } == triedInline?.map { $0["route"] })
        #expect(tried?.isEmpty == false)
    }

    @Test func appliesContextAndExplains() throws {
        let r = try RawHTTP.get("/v1/resolve?url=/user/conversations/12&appVersion=7.1.0&platform=ios&explain=1", port: server.port).json()
        #expect((r["route"] as? [String: String])?["name"] == "conversation-web")
        let explain = try #require(r["explain"] as? [String: Any])
        let tried = try #require(explain["tried"] as? [[String: String]])
        #expect(tried.map { $0["route"] } == ["conversation", "conversation-web"])
        #expect(tried.first?["reason"] == "since 7.2.0 > appVersion 7.1.0")
        // appVersion is read from the query's bytes, or decoded first when encoded; a
        // pre-release goes through the full parser: all the same version.
        // (A raw + is a space in a query, so build metadata comes encoded.)
        for version in ["7.3.0", "7%2E3%2E0", "7.3.0%2Bbuild.5", "7.3.0-beta.2"] {
            let answer = try RawHTTP.get("/v1/resolve?url=/user/conversations/12&appVersion=\(version)", port: server.port).json()
            #expect((answer["route"] as? [String: String])?["name"] == "conversation", "\(version)")
        }
        let early = try RawHTTP.get("/v1/resolve?url=/user/conversations/12&appVersion=7.2.0-beta", port: server.port).json()
        #expect((early["route"] as? [String: String])?["name"] == "conversation-web")
    }

    @Test(arguments: [
        ("/v1/resolve", "the url parameter is required"),
        ("/v1/resolve?url=/a&url=/b", "give the url parameter once"),
        ("/v1/resolve?url=/a%zz", "malformed query string"),
        ("/v1/resolve?url=/a&other=%4", "malformed query string"),
        ("/v1/resolve?%zz=1&url=/a", "malformed query string"),
        ("/v1/resolve?url=/a%00b", "NUL"),
        ("/v1/resolve?url=/a&appVersion=seven", "appVersion"),
        ("/v1/resolve?url=/a&appVersion=7.3.0&appVersion=7.3.0", "give appVersion at most once"),
        ("/v1/resolve?url=/a&appVersion=%FF", "appVersion is not UTF-8"),
        ("/v1/resolve?url=/a&explain=maybe", "explain"),
    ])
    func answersProblemsForBadQueries(_ target: String, _ detail: String) throws {
        let r = try RawHTTP.get(target, port: server.port)
        #expect(r.status == 400)
        #expect(r.header("Content-Type") == "application/problem+json")
        let json = try r.json()
        #expect(json["type"] as? String == "about:blank")
        #expect(json["title"] as? String == "Bad Request")
        #expect(json["status"] as? Int == 400)
        #expect((json["detail"] as? String)?.contains(detail) == true, "\(json)")
    }

    @Test func everyClassifiableURLGets200() throws {
        for url in ["javascript%3Aalert(1)", "%2F%2F%2Fevil.com", "mailto%3Aa%40b", "%C3%28", ""] {
            let r = try RawHTTP.get("/v1/resolve?url=\(url)", port: server.port)
            #expect(r.status == 200, "\(url)")
        }
    }

    @Test func resolvesBatchesInOrder() throws {
        let body = #"{"urls": ["/artist/banksy", "mailto:a@b.c", "/no/where/at/all", "javascript:x"], "context": {"idiom": "tablet"}}"#
        let r = try RawHTTP.request("POST", "/v1/resolve", headers: [("Content-Type", "application/json")], body: Array(body.utf8), port: server.port)
        #expect(r.status == 200)
        let results = try #require(try r.json()["results"] as? [[String: Any]])
        #expect(results.map { $0["status"] as? String } == ["matched", "external", "fallback", "rejected"])
        #expect((results[0]["presentation"] as? [String: String]) == ["style": "modal"])
    }

    @Test func anItemMayCarryItsOwnContext() throws {
        let body = #"""
        {"urls": ["/user/conversations/12",
                  {"url": "/user/conversations/12", "context": {"appVersion": "7.1.0"}},
                  {"url": "/artist/banksy", "context": {}},
                  {"url": "/artist/banksy"}],
         "context": {"appVersion": "7.3.0", "idiom": "tablet"}}
        """#
        let r = try RawHTTP.request("POST", "/v1/resolve", body: Array(body.utf8), port: server.port)
        #expect(r.status == 200)
        let results = try #require(try r.json()["results"] as? [[String: Any]])
        #expect(results.map { $0["destination"] as? String } == ["Conversation", "WebView", "Artist", "Artist"])
        // An item's own context replaces the batch's whole: no tablet for the third.
        #expect((results[2]["presentation"] as? [String: String]) == ["style": "push"])
        #expect((results[3]["presentation"] as? [String: String]) == ["style": "modal"])
    }

    @Test func refusesBadBatches() throws {
        func post(_ body: String) throws -> RawHTTP.Response {
            try RawHTTP.request("POST", "/v1/resolve", body: Array(body.utf8), port: server.port)
        }
        let malformed = try post(#"{"urls": ["/a",]}"#)
        #expect(malformed.status == 400)
        #expect(try malformed.json()["offset"] as? Int == 15)
        #expect(try post(#"{"urls": [1]}"#).json()["pointer"] as? String == "/urls/0")
        #expect(try post(#"{"urls": [{"context": {}}]}"#).json()["pointer"] as? String == "/urls/0/url")
        #expect(try post(#"{"urls": ["/a", {"url": "/b", "context": {"appVersion": "x"}}]}"#).json()["pointer"] as? String == "/urls/1/context/appVersion")
        #expect(try post(#"{"urls": [{"url": "/b", "colour": 1}]}"#).json()["pointer"] as? String == "/urls/0/colour")
        #expect(try post(#"["/a"]"#).status == 400)
        #expect(try post(#"{"url": "/a"}"#).status == 400)
        #expect(try post(#"{"urls": [], "context": {"appVersion": "x"}}"#).json()["pointer"] as? String == "/context/appVersion")
        #expect(try post(String(repeating: "[", count: 10_000)).status == 400)
        #expect(try post("{\"urls\": [\"\u{FFFD}\"]}").status == 200)
        #expect(try RawHTTP.request("POST", "/v1/resolve", body: [0x7B, 0xFF, 0x7D], port: server.port).status == 400)
    }

    @Test func limitsBatchesTo10000URLsAnd1MiB() throws {
        let ok = "{\"urls\": [" + Array(repeating: "\"/a\"", count: 10_000).joined(separator: ",") + "]}"
        let okResponse = try RawHTTP.request("POST", "/v1/resolve", body: Array(ok.utf8), port: server.port)
        #expect(okResponse.status == 200)
        #expect((try okResponse.json()["results"] as? [Any])?.count == 10_000)
        let tooMany = "{\"urls\": [" + Array(repeating: "\"/a\"", count: 10_001).joined(separator: ",") + "]}"
        #expect(try RawHTTP.request("POST", "/v1/resolve", body: Array(tooMany.utf8), port: server.port).status == 413)
        let big = [UInt8](repeating: UInt8(ascii: " "), count: (1 << 20) + 1)
        #expect(try RawHTTP.request("POST", "/v1/resolve", body: big, port: server.port).status == 413)
        let exactly = Array("{\"urls\":[]}".utf8) + [UInt8](repeating: UInt8(ascii: " "), count: (1 << 20) - 11)
        #expect(try RawHTTP.request("POST", "/v1/resolve", body: exactly, port: server.port).status == 200)
    }
}
