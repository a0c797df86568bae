import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing

@Suite(.serialized)
struct ValidateCommandTests {
    static let cases = """
    # Deep links that must keep working
    https://www.artsy.net/artwork/andy-warhol-soup -> Artwork
    artsy://artist/banksy/works -> Artist

    https://www.artsy.net/no/such/page -> fallback
    mailto:press@artsy.net -> external
    https://artsy.net@evil.com/ -> rejected
    /orders/123e4567-e89b-12d3-a456-426614174000
    """

    @Test func passingCasesExit0() throws {
        let out = try CLI.run(["validate", try CLI.temporaryFile(Self.cases, name: "cases.txt")])
        #expect(out.status == 0, "\(out.stdout)\(out.stderr)")
        #expect(out.stdout == "6 passed, 0 failed\n")
    }

    @Test func failuresAreExplainedAndExit1() throws {
        let path = try CLI.temporaryFile(Self.cases + "\nhttps://www.artsy.net/artist/banksy/bogus -> Artist\n/orders/nope -> OrderDetails\n", name: "cases.txt")
        let out = try CLI.run(["validate", "--config", "Config/routes.json", path])
        #expect(out.status == 1)
        let lines = out.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("FAIL line 9: https://www.artsy.net/artist/banksy/bogus -> Artist"))
        #expect(lines.contains("  expected Artist, got fallback -> WebView"))
        #expect(lines.contains("  tried artist /artist/:id(/:tab): refused (param tab: not one of works|shows|about|articles)"))
        #expect(lines.contains("  tried order /orders/:orderID: refused (param orderID: not a uuid)"))
        #expect(lines.last == "6 passed, 2 failed")
    }

    @Test func appliesTheContext() throws {
        let path = try CLI.temporaryFile("/user/conversations/12 -> Conversation\n", name: "cases.txt")
        #expect(try CLI.run(["validate", path]).status == 0)
        #expect(try CLI.run(["validate", "--app-version", "7.1.0", path]).status == 1)
    }

    @Test func writesJUnitXMLWithTheRightCounts() throws {
        let path = try CLI.temporaryFile(Self.cases + "\n/orders/nope\n", name: "cases.txt")
        let junit = (path as NSString).deletingLastPathComponent + "/junit.xml"
        let out = try CLI.run(["validate", path, "--junit", junit])
        #expect(out.status == 1)
        let document = try XMLDocument(contentsOf: URL(fileURLWithPath: junit))
        let suite = try #require(document.nodes(forXPath: "//testsuite").first as? XMLElement)
        #expect(suite.attribute(forName: "tests")?.stringValue == "7")
        #expect(suite.attribute(forName: "failures")?.stringValue == "1")
        #expect(try document.nodes(forXPath: "//testcase").count == 7)
        let failure = try #require(document.nodes(forXPath: "//failure").first as? XMLElement)
        #expect(failure.attribute(forName: "message")?.stringValue == "expected a route, got fallback -> WebView")
        #expect(failure.stringValue?.contains("refused (param orderID: not a uuid)") == true)
    }

    @Test func aLineThatIsNotACaseIsAnErrorNamingIt() throws {
        let out = try CLI.run(["validate", try CLI.temporaryFile("/a -> A\nnot a case\n", name: "cases.txt")])
        #expect(out.status == 2)
        #expect(out.stderr.contains("line 2: expected 'URL' or 'URL -> Destination"))
        #expect(try CLI.run(["validate", try CLI.temporaryFile("/a -> A -> B\n", name: "cases.txt")]).status == 2)
        #expect(try CLI.run(["validate", try CLI.temporaryFile("/a ->\n", name: "cases.txt")]).status == 2)
    }

    @Test func unreadableInputExits2() throws {
        #expect(try CLI.run(["validate", "/nonexistent/cases.txt"]).status == 2)
        #expect(try CLI.run(["validate", "--config", "/nonexistent.json", try CLI.temporaryFile("/a\n", name: "c.txt")]).status == 2)
        #expect(try CLI.run(["validate", "--config", "Config/routes.json", "--server", "http://127.0.0.1:1", "x"]).status == 2)
        #expect(try CLI.run(["validate", "--server", "http://127.0.0.1:1", try CLI.temporaryFile("/a\n", name: "c.txt")]).status == 2)
    }

    @Test func readsCasesFromStandardInput() throws {
        #expect(try CLI.run(["validate", "-"], stdin: "/artist/x -> Artist\n").stdout == "1 passed, 0 failed\n")
    }
}

@Suite(.serialized)
struct RoutesAndExportTests {
    @Test func routesListsThePrecedenceOrder() throws {
        let out = try CLI.run(["routes"])
        #expect(out.status == 0)
        let lines = out.stdout.split(separator: "\n").map(String.init)
        #expect(lines[0].hasPrefix("#   HOST"))
        func row(_ path: String) -> Int? { lines.firstIndex { $0.split(separator: " ", omittingEmptySubsequences: true).dropFirst(2).first.map(String.init) == path } }
        // Host-restricted first; a literal before a param; the catch-all param last.
        #expect(try #require(row("/*")) < #require(row("/")))
        #expect(try #require(row("/artist/:id/auction-results")) < #require(row("/artist/:id/:tab")))
        #expect(try #require(row("/user/conversations/:id")) < #require(row("/:profile_id")))
        #expect(lines.last?.contains("profile") == true)
    }

    @Test func aasaCoversEveryPatternOnce() throws {
        let out = try CLI.run(["export", "aasa", "--app-id", "ABCDE12345.net.artsy.app"])
        #expect(out.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any])
        let details = try #require((json["applinks"] as? [String: Any])?["details"] as? [[String: Any]])
        #expect(details[0]["appIDs"] as? [String] == ["ABCDE12345.net.artsy.app"])
        let components = try #require(details[0]["components"] as? [[String: Any]])
        let keys = components.map { "\($0["/"] as? String ?? "")?\(($0["?"] as? [String: String])?.keys.sorted() ?? [])" }
        #expect(keys.count == Set(keys).count)
        let paths = components.compactMap { $0["/"] as? String }
        // A route that requires a query item gets its own component, before the plain one.
        let search = components.filter { $0["/"] as? String == "/search" }
        #expect(search.count == 2)
        #expect(search.first?["?"] as? [String: String] == ["q": "?*"])
        for expected in ["/", "/artwork/*", "/artist/*/*", "/artist/*", "/help/*", "/help", "/search", "/*"] {
            #expect(paths.contains(expected), "\(expected)")
        }
        // Excluded routes come before what would otherwise match them (/* here).
        let terms = try #require(components.firstIndex { $0["/"] as? String == "/terms" })
        #expect(components[terms]["exclude"] as? Bool == true)
        #expect(terms < (try #require(paths.firstIndex(of: "/*"))))
        // Host-restricted routes of other hosts stay out.
        #expect(!paths.contains("/admin/*"))
    }

    @Test func aasaCheckFindsGapsBothWays() throws {
        let generated = try CLI.run(["export", "aasa", "--app-id", "A.b"]).stdout
        let good = try CLI.temporaryFile(generated, name: "aasa.json")
        #expect(try CLI.run(["export", "aasa", "--check", good]).status == 0)
        let bad = try CLI.temporaryFile("""
        {"applinks": {"details": [{"appIDs": ["A.b"], "components": [{"/": "/terms"}, {"/": "/artwork/*"}, {"/": "/nope/*"}]}]}}
        """, name: "aasa.json")
        let out = try CLI.run(["export", "aasa", "--check", bad])
        #expect(out.status == 1)
        #expect(out.stdout.contains("route terms (/terms) has universalLink false but /terms opens the app"))
        #expect(out.stdout.contains("route artist (/artist/:id) is not covered"))
        #expect(out.stdout.contains("/nope/* opens the app on paths no route matches"))
        #expect(try CLI.run(["export", "aasa", "--check", "/nonexistent.json"]).status == 2)
    }

    @Test func appLinksHaveOneFilterPerHost() throws {
        let out = try CLI.run(["export", "app-links", "--package", "net.artsy.app"])
        #expect(out.status == 0)
        let document = try XMLDocument(xmlString: "<root xmlns:android=\"http://schemas.android.com/apk/res/android\">" + out.stdout + "</root>")
        let filters = try document.nodes(forXPath: "//intent-filter")
        #expect(filters.count == 4)
        #expect(out.stdout.contains("<data android:pathPattern=\"/artwork/.*\" />"))
        #expect(!out.stdout.contains("\"/terms\""))
    }
}
