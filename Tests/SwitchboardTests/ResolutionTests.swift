import Foundation
import Testing
@testable import Switchboard

struct ResolutionTests {
    let spec: CompiledManifest

    init() throws {
        spec = try Fixtures.compile(Fixtures.spec)
    }

    @Test func resolvesTheSpecExampleWithKeysInOrder() throws {
        let r = spec.resolve("https://www.artsy.net/artwork/andy-warhol-soup?ref=home#top")
        let json = String(decoding: spec.resultJSON(r), as: UTF8.self)
        #expect(json == #"{"url":"https://www.artsy.net/artwork/andy-warhol-soup?ref=home#top","status":"matched","route":{"name":"artwork","pattern":"/artwork/:id"},"destination":"Artwork","params":{"id":"andy-warhol-soup","ref":"home"},"presentation":{"style":"push"},"fragment":"top","manifest":{"version":3,"etag":"\#(spec.etag.replacingOccurrences(of: "\"", with: "\\\""))"}}"#)
    }

    /// A URL that screening finds plain is written without a look for what to escape;
    /// one with a quote, a backslash escape or non-ASCII bytes is escaped where it
    /// appears, as the URL and as a param read from its path, before and after a redirect.
    @Test func urlsAndSegmentsAreEscapedUnlessPlain() throws {
        let m = try Fixtures.compile([
            #"{"name": "artwork", "pattern": "/artwork/:id", "destination": "Artwork"}"#,
            #"{"name": "works", "pattern": "/works/:id", "redirect": "/artwork/:id"}"#,
            #"{"name": "all", "pattern": "/in/*rest", "destination": "All"}"#,
            #"{"name": "old", "pattern": "/old/:id", "redirect": "/in/q\"x/:id"}"#,
        ])
        var plain = false
        _ = m.scope.classify(Array("/artwork/a-b".utf8), plain: &plain)
        #expect(plain)
        for url in ["/artwork/a\"b", "/artwork/a%22b", "/artwork/caf\u{e9}", "/artwork/x%E2%80%A8y"] {
            _ = m.scope.classify(Array(url.utf8), plain: &plain)
            #expect(!plain, "\(url)")
        }
        func json(_ url: String) -> String { String(decoding: m.resultJSON(m.resolve(url)), as: UTF8.self) }
        #expect(json("/artwork/a\"b").hasPrefix(#"{"url":"/artwork/a\"b","status":"matched""#))
        #expect(json("/artwork/a\"b").contains(#""params":{"id":"a\"b"}"#))
        #expect(json("/artwork/a%22b").contains(#""params":{"id":"a\"b"}"#))
        #expect(json("/artwork/x%E2%80%A8y").contains("\"params\":{\"id\":\"x\u{2028}y\"}"))
        #expect(json("/artwork/plain-id").contains(#""params":{"id":"plain-id"}"#))
        #expect(json("/no/such/page\"x").contains(#""params":{"url":"/no/such/page\"x"}"#))
        #expect(json("/works/a\"b").contains(#""params":{"id":"a\"b"}"#))
        #expect(json("/works/plain").contains(#""params":{"id":"plain"}"#))
        // After a redirect the segments hold the manifest's literals, whatever the URL was.
        #expect(json("/old/abc").contains(#""params":{"rest":"q\"x/abc"}"#), "\(json("/old/abc"))")
    }

    @Test(arguments: [
        ("artsy://artwork/x", "artwork"),
        ("artsy:///artwork/x", "artwork"),
        ("artsy:/artwork/x", "artwork"),
        ("https://artsy.net/artwork/x/", "artwork"),
        ("https://artsy.net//artwork//x", "artwork"),
        ("https://staging.artsy.net/artwork/x", "artwork"),
        ("/artist/banksy", "artist"),
        ("/artist/banksy/works", "artist"),
        ("/artist/banksy/auction-results", "artist-auction-results"),
        ("https://live.artsy.net/artwork/x", "live-auction"),
        ("https://live.artsy.net/", "live-auction"),
        ("/", "home"),
        ("", "home"),
        ("/works/x", "artwork"),
        ("/artist/a/b/../../banksy", "artist"),
    ])
    func matchesRoutes(_ url: String, _ route: String) {
        let r = spec.resolve(url)
        #expect(r.status == .matched, "\(url)")
        #expect(r.route?.name == route, "\(url)")
    }

    @Test func typedParamFailuresFallThroughToLessSpecificRoutesAndTheFallback() {
        // tab must be an enum: /artist/x/other has no route of that shape and falls back.
        let r = spec.resolve("/artist/x/other")
        #expect(r.status == .fallback)
        #expect(r.destination == "WebView")
        #expect(r.presentation == .web)
        #expect(r.paramsText == ["url": #""/artist/x/other""#])
        // artwork ids are slugs: a%2Fb decodes to a/b, not a slug.
        #expect(spec.resolve("/artwork/a%2Fb").status == .fallback)
    }

    @Test func keepsEncodedSlashInsideOneParamAndDecodesOnce() throws {
        let m = try Fixtures.compile([#"{"name": "a", "pattern": "/artist/:id", "destination": "A"}"#])
        #expect(m.resolve("https://artsy.net/artist/a%2Fb").paramsText["id"] == #""a/b""#)
        #expect(m.resolve("/artist/%2541").paramsText["id"] == #""%41""#)
        #expect(m.resolve("/artist/a+b").paramsText["id"] == #""a+b""#)
    }

    @Test func queryParams() throws {
        let r = spec.resolve("/artwork/x?r=1&r=2&flag&q=a+b&id=ignored")
        #expect(r.paramKeys == ["id", "r", "flag", "q"])
        #expect(r.paramsText == ["id": #""x""#, "r": #"["1","2"]"#, "flag": #""""#, "q": #""a b""#])
    }

    @Test func convertsIntsToNumbers() {
        let r = spec.resolve("/user/conversations/0042")
        #expect(r.paramsText["id"] == "42")
        #expect(r.presentation == Presentation(style: .modal, options: [.init("modalStyle", .string("formSheet"))]))
    }

    @Test func sinceAndUntilGateByAppVersion() throws {
        let old = ResolveContext(appVersion: SemanticVersion("7.1.9")!)
        let new = ResolveContext(appVersion: SemanticVersion("7.2")!)
        #expect(spec.resolve("/user/conversations/1", context: old).status == .fallback)
        #expect(spec.resolve("/user/conversations/1", context: new).status == .matched)
        #expect(spec.resolve("/user/conversations/1").status == .matched)
        let explained = spec.resolve("/user/conversations/1", context: old, explain: true)
        #expect(explained.explanation?.steps.first?.detail == "since 7.2.0 > appVersion 7.1.9")

        let m = try Fixtures.compile([
            #"{"name": "new", "pattern": "/c/:id", "destination": "New", "since": "7.2.0", "priority": 1}"#,
            #"{"name": "old", "pattern": "/c/:id", "destination": "Old", "until": "7.2.0"}"#,
        ])
        #expect(m.resolve("/c/1", context: old).destination == "Old")
        #expect(m.resolve("/c/1", context: new).destination == "New")
        #expect(m.resolve("/c/1", context: ResolveContext(appVersion: SemanticVersion("7.2.0-beta.1")!)).destination == "Old")
    }

    @Test func variantsPickTheFirstThatHolds() throws {
        let m = try Fixtures.compile([
            #"{"name": "a", "pattern": "/a", "destination": "A", "variants": [{"when": {"platform": ["android"], "appVersion": "<7.0.0"}, "destination": "Legacy"}, {"when": {"idiom": "tablet"}, "presentation": {"style": "sheet", "detent": "large"}}, {"when": {"platform": "android"}, "destination": "Android"}]}"#,
        ])
        #expect(m.resolve("/a").destination == "A")
        #expect(m.resolve("/a", context: ResolveContext(platform: "android", appVersion: SemanticVersion("6.9")!)).destination == "Legacy")
        #expect(m.resolve("/a", context: ResolveContext(platform: "android", appVersion: SemanticVersion("7.0")!)).destination == "Android")
        let tablet = m.resolve("/a", context: ResolveContext(platform: "android", idiom: "tablet"))
        #expect(tablet.destination == "A")
        #expect(tablet.presentation?.style == .sheet)
        #expect(spec.resolve("/artist/x", context: ResolveContext(idiom: "tablet")).presentation?.style == .modal)
    }

    @Test func injectOverridesAndCopiesConvertedValues() throws {
        let m = try Fixtures.compile([
            #"{"name": "a", "pattern": "/a/:id", "destination": "A", "params": {"id": {"type": "int"}, "q": {}}, "inject": {"id": "fixed", "copy": {"param": "id"}, "n": 3, "absent": {"param": "q"}}}"#,
        ])
        let r = m.resolve("/a/7?z=1")
        // Injected params in key order, as the canonical manifest has them.
        #expect(r.paramKeys == ["z", "copy", "id", "n"])
        #expect(r.paramsText == ["z": #""1""#, "id": #""fixed""#, "copy": "7", "n": "3"])
        #expect(m.resolve("/a/7?q=here").paramsText["absent"] == #""here""#)
    }

    /// The result JSON writes params from the URL's bytes; `Resolution.params` builds them
    /// as values. Both must say the same, member for member, whatever rules applied.
    @Test(arguments: [
        "/a/7?z=1", "/a/7?q=here&q=again&id=9", "/a/x?copy=1", "/a/-12?url=u",
        "/u/123E4567-E89B-12D3-A456-426614174000?ref=%22quoted%22&ref=2",
        "/news/caf%C3%A9?url=evil&slug=s", "/go/here?url=there", "/files/a/b%2Fc/d", "/files",
        "/search?page=3&q=x&q=y", "/search", "/nothing?url=evil#frag", "https://evil.com/a/1", "/a/%00",
    ])
    func jsonParamsAgreeWithResolutionParams(url: String) throws {
        let m = try Fixtures.compile([
            #"{"name": "a", "pattern": "/a/:id", "destination": "A", "params": {"id": {"type": "int"}, "q": {}}, "inject": {"id": "fixed", "copy": {"param": "id"}, "n": 3, "absent": {"param": "q"}}}"#,
            #"{"name": "u", "pattern": "/u/:uuid", "destination": "U", "params": {"uuid": {"type": "uuid"}, "ref": {"type": "string"}}}"#,
            #"{"name": "news", "pattern": "/news/:slug", "destination": "Article", "presentation": "web"}"#,
            #"{"name": "bound", "pattern": "/go/:url", "destination": "Web", "presentation": "web"}"#,
            #"{"name": "files", "pattern": "/files(/*path)", "destination": "Files", "inject": {"copy": {"param": "path"}}}"#,
            #"{"name": "search", "pattern": "/search", "destination": "Search", "params": {"page": {"type": "int", "default": 1}, "q": {"type": "string"}}}"#,
        ])
        let r = m.resolve(url)
        guard case .object(let result) = try JSONParser.parse(m.resultJSON(r)) else { Issue.record("not an object"); return }
        let params = result.first { $0.key == "params" }?.value
        if case .object(let members) = params {
            #expect(members.map(\.key) == r.paramKeys)
            #expect(members.map { $0.value.serialized() } == r.params.map { $0.value.serialized() })
        } else {
            #expect(params == nil)
            #expect(r.params.isEmpty)
        }
    }

    @Test func webRoutesCarryTheURLAsGiven() throws {
        let m = try Fixtures.compile([
            #"{"name": "news", "pattern": "/news/:slug", "destination": "Article", "presentation": "web"}"#,
            #"{"name": "bound", "pattern": "/go/:url", "destination": "Web", "presentation": "web"}"#,
        ])
        let r = m.resolve("https://artsy.net/news/x?url=evil")
        #expect(r.paramKeys == ["slug", "url"])
        #expect(r.paramsText["url"] == #""https://artsy.net/news/x?url=evil""#)
        #expect(m.resolve("/go/here").paramsText["url"] == #""here""#)
        #expect(m.resolve("/nothing?url=evil").paramsText == ["url": #""/nothing?url=evil""#])
    }

    @Test func externalAndRejectedResultsHaveTheirShapes() {
        let ext = spec.resolve("https://evil.com/artwork/x")
        #expect(ext.status == .external)
        #expect(String(decoding: spec.resultJSON(ext), as: UTF8.self).hasPrefix(#"{"url":"https://evil.com/artwork/x","status":"external","presentation":{"style":"external"},"manifest":"#))
        let rej = spec.resolve("https://artsy.net@evil.com/")
        #expect(rej.status == .rejected)
        #expect(String(decoding: spec.resultJSON(rej), as: UTF8.self).hasPrefix(#"{"url":"https://artsy.net@evil.com/","status":"rejected","reason":"userinfo in URL","manifest":"#))
    }

    @Test func hostRestrictedRoutesBeatOthersOnlyOnTheirHost() {
        #expect(spec.resolve("https://live.artsy.net/artwork/x").route?.name == "live-auction")
        #expect(spec.resolve("https://artsy.net/anything").status == .fallback)
        #expect(spec.resolve("artsy://anything").status == .fallback)
    }

    /// Host-restricted routes are found by host whether the manifest restricts routes to
    /// a few hosts (compared in turn) or to many (hashed).
    @Test(arguments: [1, 2, 8, 9, 12])
    func hostRestrictedRoutesAreFoundWithFewOrManyHosts(_ count: Int) throws {
        let hosts = (0..<count).map { "h\($0).example.com" } + ["plain.example.com"]
        let routes = (0..<count).map { #"{"name": "r\#($0)", "hosts": ["h\#($0).example.com"], "pattern": "/x", "destination": "R\#($0)"}"# }
            + [#"{"name": "general", "pattern": "/x", "destination": "General"}"#]
        let json = #"{"version": 1, "hosts": [\#(hosts.map { "\"\($0)\"" }.joined(separator: ", "))], "routes": [\#(routes.joined(separator: ","))]}"#
        let m = try CompiledManifest(json: Array(json.utf8))
        for k in 0..<count {
            #expect(m.resolve("https://h\(k).example.com/x").route?.name == "r\(k)", "\(count) hosts, h\(k)")
            #expect(m.resolve("https://H\(k).EXAMPLE.com/x").route?.name == "r\(k)", "\(count) hosts, H\(k)")
        }
        #expect(m.resolve("https://plain.example.com/x").route?.name == "general")
        #expect(m.resolve("/x").route?.name == "general")
    }

    @Test func redirectsResolveAgainWithQueryAndFragment() {
        let r = spec.resolve("/works/soup?ref=x#f", explain: true)
        #expect(r.route?.name == "artwork")
        #expect(r.paramsText == ["id": #""soup""#, "ref": #""x""#])
        #expect(r.fragment == "f")
        #expect(r.explanation?.steps.map(\.outcome) == ["redirected", "matched"])
    }

    @Test func redirectValuesAreDataNotPaths() throws {
        let m = try Fixtures.compile([
            #"{"name": "old", "pattern": "/old/:id", "redirect": "/new/:id"}"#,
            #"{"name": "new", "pattern": "/new/:id", "destination": "New"}"#,
        ])
        #expect(m.resolve("/old/..%2F..").paramsText["id"] == #""../..""#)
    }

    @Test func caseSensitiveLiteralsWhenAsked() throws {
        let m = try Fixtures.compile([#"{"name": "a", "pattern": "/About", "destination": "A"}"#], extra: #""caseSensitive": true"#)
        #expect(m.resolve("/About").status == .matched)
        #expect(m.resolve("/about").status == .fallback)
        let n = try Fixtures.compile([#"{"name": "a", "pattern": "/About", "destination": "A"}"#])
        #expect(n.resolve("/aBOUT").status == .matched)
    }

    @Test func queryDeclaredParamsAreTypedRequiredAndDefaulted() throws {
        let m = try Fixtures.compile([
            #"{"name": "results", "pattern": "/search", "destination": "Results", "priority": 1, "params": {"q": {"required": true}, "page": {"type": "int", "default": 1}}}"#,
            #"{"name": "search", "pattern": "/search", "destination": "Search"}"#,
        ])
        let r = m.resolve("/search?page=2&q=warhol")
        #expect(r.route?.name == "results")
        // Declared in key order (the canonical manifest's), not the file's.
        #expect(r.paramKeys == ["page", "q"])
        #expect(r.paramsText == ["q": #""warhol""#, "page": "2"])
        #expect(m.resolve("/search?q=x").paramsText["page"] == "1")
        #expect(m.resolve("/search").route?.name == "search")
        #expect(m.resolve("/search?q=x&page=two").route?.name == "search")
    }

    /// A declared param that one expansion binds in its path and another leaves out is
    /// read from the query (or its default) and checked there for the latter; one that
    /// every expansion binds never is (a resolution skips it: `Route.queryDeclarations`).
    @Test func aParamSomeExpansionsLeaveOutComesFromTheQueryForThem() throws {
        let m = try Fixtures.compile([
            #"{"name": "artist", "patterns": ["/artist/:id(/:tab)", "/painter/:id"], "destination": "Artist", "params": {"id": {"type": "slug"}, "tab": {"type": "enum", "values": ["works", "shows"], "default": "works"}}}"#,
        ])
        #expect(m.resolve("/artist/banksy/shows").paramsText == ["id": #""banksy""#, "tab": #""shows""#])
        #expect(m.resolve("/artist/banksy?tab=shows").paramsText == ["id": #""banksy""#, "tab": #""shows""#])
        #expect(m.resolve("/painter/banksy").paramsText == ["id": #""banksy""#, "tab": #""works""#])
        #expect(m.resolve("/painter/banksy?tab=bogus").status == .fallback)
        #expect(m.resolve("/artist/banksy/shows?tab=bogus").route?.name == "artist")
        // Bound by every expansion: a query value of that name is neither a param nor checked.
        #expect(m.resolve("/painter/banksy?id=Not%20A%20Slug").paramsText == ["id": #""banksy""#, "tab": #""works""#])
    }

    @Test func wildcardValuesAreJoinedAndEmptyWhenNothingMatched() throws {
        let m = try Fixtures.compile([#"{"name": "help", "pattern": "/help/*rest", "destination": "Help"}"#])
        #expect(m.resolve("/help/a/b%2Fc").paramsText["rest"] == #""a/b/c""#)
        #expect(m.resolve("/help").paramsText["rest"] == #""""#)
    }

    /// docs/manifest.md: a type on a wildcard applies to its joined value; a failing one
    /// refuses the route (reported in `explain`) and the search goes on.
    @Test func typedWildcardChecksTheJoinedValue() throws {
        let m = try Fixtures.compile([
            #"{"name": "files", "pattern": "/files/:n/*path", "destination": "Files", "params": {"n": {"type": "int"}, "path": {"type": "regex", "pattern": "[a-z/]+"}}}"#,
            #"{"name": "any", "pattern": "/files/*rest", "destination": "Any"}"#,
        ])
        #expect(m.resolve("/files/1/a/b").route?.name == "files")
        #expect(m.resolve("/files/1/a/b").paramsText["path"] == #""a/b""#)
        #expect(m.resolve("/files/1/a/B").route?.name == "any")
        let r = m.resolve("/files/1/a/B", explain: true)
        #expect(r.explanation?.steps.first?.detail == "param path: not matching /[a-z/]+/")
        // The first failing param in pattern order is the one reported.
        let both = m.resolve("/files/x/a/B", explain: true)
        #expect(both.explanation?.steps.first?.detail == "param n: not an int")
    }

    @Test func tooManyRedirectsAtRunTimeFallBack() throws {
        // A chain of 9 redirects is not a cycle but exceeds the hop limit.
        var routes: [String] = []
        for i in 0..<9 { routes.append(#"{"name": "r\#(i)", "pattern": "/r\#(i)/:id", "redirect": "/r\#(i + 1)/:id"}"#) }
        routes.append(#"{"name": "end", "pattern": "/r9/:id", "destination": "End"}"#)
        let m = try Fixtures.compile(routes)
        #expect(m.resolve("/r1/x").destination == "End")
        #expect(m.resolve("/r0/x").status == .fallback)
    }

    @Test func explainListsCandidatesInOrderWithReasons() throws {
        let m = try Fixtures.compile([
            #"{"name": "int", "pattern": "/c/:id", "destination": "I", "params": {"id": {"type": "int"}}}"#,
            #"{"name": "uuid", "pattern": "/c/:id", "destination": "U", "params": {"id": {"type": "uuid"}}}"#,
            #"{"name": "str", "pattern": "/c/:slug", "destination": "S"}"#,
        ])
        let r = m.resolve("/c/hello", explain: true)
        #expect(r.route?.name == "str")
        let steps = try #require(r.explanation?.steps)
        #expect(steps.map(\.route) == ["int", "uuid", "str"])
        #expect(steps.map(\.detail) == ["param id: not an int", "param id: not a uuid", nil])
        let json = String(decoding: m.resultJSON(r), as: UTF8.self)
        #expect(json.contains(#""explain":{"host":null,"path":"/c/hello","segments":["c","hello"],"tried":[{"route":"int""#))
    }

    /// Each step names the expansion tried, as the route table writes it, so one row of
    /// the table is the one that took the URL.
    @Test func explainNamesTheExpansionTried() throws {
        let m = try Fixtures.compile([
            #"{"name": "x", "pattern": "/X(/:a)(/:b)", "destination": "X", "params": {"a": {"type": "int"}}}"#,
            #"{"name": "files", "pattern": "/files/*rest", "destination": "F"}"#,
        ])
        let steps = try #require(m.resolve("/x/hello", explain: true).explanation?.steps)
        #expect(steps.map(\.expansion) == ["/x/:a", "/x/:b"])
        #expect(steps.map(\.outcome) == ["refused", "matched"])
        #expect(steps.map(\.pattern) == ["/X(/:a)(/:b)", "/X(/:a)(/:b)"])
        #expect(m.resolve("/files/a/b", explain: true).explanation?.steps.map(\.expansion) == ["/files/*rest"])
        let rows = Set(m.table.map { "\($0.route.name) \($0.path)" })
        for step in steps { #expect(rows.contains("\(step.route) \(step.expansion)")) }
        #expect(String(decoding: m.resultJSON(m.resolve("/x", explain: true)), as: UTF8.self)
            .contains(#""tried":[{"route":"x","pattern":"/X(/:a)(/:b)","expansion":"/x","path":"/x","outcome":"matched"}]"#))
    }
}
