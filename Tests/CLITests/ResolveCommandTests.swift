import Foundation
import Testing

@Suite(.serialized)
struct ResolveCommandTests {
    func objects(_ stdout: String) throws -> [[String: Any]] {
        try stdout.split(separator: "\n").map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    @Test func printsOneResultPerLineInOrder() throws {
        let out = try CLI.run(["resolve", "https://www.artsy.net/artwork/andy-warhol-soup?ref=home#top", "mailto:a@b.c", "javascript:alert(1)", "/nothing/here"])
        #expect(out.status == 0, "\(out.stderr)")
        let results = try objects(out.stdout)
        #expect(results.map { $0["status"] as? String } == ["matched", "external", "rejected", "fallback"])
        #expect(results[0]["destination"] as? String == "Artwork")
        #expect((results[0]["params"] as? [String: String]) == ["id": "andy-warhol-soup", "ref": "home"])
        #expect(results[2]["reason"] as? String == "unsafe scheme")
        #expect(out.stdout.split(separator: "\n")[0].hasPrefix(#"{"url":"https://www.artsy.net/artwork/andy-warhol-soup?ref=home#top","status":"matched","route":{"name":"artwork","pattern":"/artwork/:id"},"destination":"Artwork","params":{"id":"andy-warhol-soup","ref":"home"},"presentation":{"style":"push"},"fragment":"top","manifest":{"version":1,"etag":"\"sha256-"#))
    }

    @Test func readsURLsFromStandardInput() throws {
        let out = try CLI.run(["resolve", "-"], stdin: "/artist/banksy\n\n/orders\r\n")
        #expect(out.status == 0)
        #expect(try objects(out.stdout).map { $0["destination"] as? String } == ["Artist", "OrderHistory"])
    }

    @Test func appliesContextAndExplains() throws {
        let out = try CLI.run(["resolve", "--app-version", "7.1.0", "--explain", "/user/conversations/12"])
        #expect(out.status == 0)
        let result = try #require(try objects(out.stdout).first)
        #expect(result["destination"] as? String == "WebView")
        let explain = try #require(result["explain"] as? [String: Any])
        let tried = try #require(explain["tried"] as? [[String: String]])
        #expect(tried.first?["route"] == "conversation")
        #expect(tried.first?["reason"] == "since 7.2.0 > appVersion 7.1.0")
        let tablet = try CLI.run(["resolve", "--idiom", "tablet", "--platform", "ios", "/artist/banksy"])
        #expect(try objects(tablet.stdout).first?["presentation"] as? [String: String] == ["style": "modal"])
    }

    @Test func usesTheGivenManifest() throws {
        let path = try CLI.temporaryFile(#"{"version": 9, "hosts": [], "routes": [{"name": "a", "pattern": "/a", "destination": "A"}]}"#)
        let out = try CLI.run(["resolve", "--config", path, "/a"])
        #expect(try objects(out.stdout).first?["destination"] as? String == "A")
    }

    @Test func usageErrorsExit2() throws {
        #expect(try CLI.run(["resolve", "--app-version", "seven", "/a"]).status == 2)
        #expect(try CLI.run(["resolve"]).status == 2)
        #expect(try CLI.run(["resolve", "--config", "/nonexistent.json", "/a"]).status == 2)
        #expect(try CLI.run(["frobnicate"]).status == 2)
    }

    @Test func anInvalidManifestExits1() throws {
        let path = try CLI.temporaryFile(#"{"version": 1, "routes": []}"#)
        let out = try CLI.run(["resolve", "--config", path, "/a"])
        #expect(out.status == 1)
        #expect(out.stderr.contains("error[empty-routes] /routes"))
    }
}
