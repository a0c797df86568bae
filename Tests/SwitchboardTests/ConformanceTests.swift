import Foundation
import Testing
@testable import Switchboard

/// What a faithful port of an in-app router's table means here: optional groups as
/// JLRoutes expands them, and no diagnostic that refuses what docs/manifest.md accepts.
struct ConformanceTests {
    static func warnings(_ m: CompiledManifest) -> [String] { m.warnings.filter { $0.severity == .warning }.map(\.code) }

    @Test func everyOrderedCombinationOfGroupsMatches() throws {
        let m = try Fixtures.compile([#"{"name": "p", "pattern": "/path/:thing(/new)(/anotherpath/:other)", "destination": "P"}"#])
        for (url, params) in [("/path/foo/anotherpath/bar", ["thing": "\"foo\"", "other": "\"bar\""]),
                              ("/path/foo/new/anotherpath/bar", ["thing": "\"foo\"", "other": "\"bar\""]),
                              ("/path/foo/new", ["thing": "\"foo\""]), ("/path/foo", ["thing": "\"foo\""])] {
            let r = m.resolve(url)
            #expect(r.status == .matched && r.paramsText == params, "\(url)")
        }
        #expect(m.resolve("/path/foo/anotherpath").status == .fallback)
    }

    @Test func theExpansionKeepingEarlierGroupsWinsATie() throws {
        let m = try Fixtures.compile([#"{"name": "x", "pattern": "/x(/:a)(/:b)", "destination": "X"}"#])
        #expect(m.resolve("/x/1").paramsText == ["a": "\"1\""])
        #expect(m.resolve("/x/1/2").paramsText == ["a": "\"1\"", "b": "\"2\""])
        #expect(Self.warnings(m).isEmpty)
    }

    @Test func groupsRightAfterASlashLoadAndMatch() throws {
        let m = try Fixtures.compile([#"{"name": "o", "pattern": "/(rest/)(app/):object/:id", "destination": "O"}"#])
        for url in ["/rest/app/aaa/bbb", "/app/aaa/bbb", "/rest/aaa/bbb", "/aaa/bbb"] {
            #expect(m.resolve(url).paramsText == ["object": "\"aaa\"", "id": "\"bbb\""], "\(url)")
        }
    }

    @Test func injectFromAnUndeclaredParamIsAWarningAndCopiesTheQuery() throws {
        let m = try Fixtures.compile([#"{"name": "partner-artists", "pattern": "/partner/:partnerID/artists", "destination": "Partner", "inject": {"initialTab": "Artists", "hashFragment": {"param": "hashFragment"}}}"#])
        #expect(m.warnings.map(\.code) == ["undeclared-param"])
        #expect(m.warnings[0].pointer == "/routes/0/inject/hashFragment/param")
        #expect(m.resolve("/partner/gagosian/artists?hashFragment=top").paramsText["hashFragment"] == "\"top\"")
        #expect(m.resolve("/partner/gagosian/artists").paramsText["hashFragment"] == nil)
    }

    @Test func aTypedExpansionStillWinsBesideAHigherPriorityOne() throws {
        let m = try Fixtures.compile([
            #"{"name": "new-x", "pattern": "/new/x(/:slug)", "priority": 1, "destination": "Slug"}"#,
            #"{"name": "new-x-id", "pattern": "/new/x(/:slug)", "destination": "Id", "params": {"slug": {"type": "uuid"}}}"#,
        ])
        #expect(m.resolve("/new/x/0b5ab8a4-2a0e-4a0b-9c66-8e9e2c1d6b0f").destination == "Id")
        #expect(m.resolve("/new/x/abc").destination == "Slug")
        #expect(m.resolve("/new/x").destination == "Slug")
    }

    @Test func aPatternWhoseExpansionsAreAllShadowedNeverWins() {
        let problems = Fixtures.problems([
            #"{"name": "a", "pattern": "/a(/:b)", "priority": 1, "destination": "A"}"#,
            #"{"name": "z", "pattern": "/a(/:c)", "destination": "Z"}"#,
        ])
        #expect(problems.map(\.code) == ["never-wins"])
        #expect(problems.first?.pointer == "/routes/1/pattern")
        #expect(problems.first?.message.contains("each of its 2 expansions") == true)
    }

    @Test func aCollisionNewToAllSubsetsNamesTheExpansionAndItsGroups() {
        let problems = Fixtures.problems([
            #"{"name": "abc", "pattern": "/a(/b)(/c)", "destination": "A"}"#,
            #"{"name": "ac", "pattern": "/a/c", "destination": "C"}"#,
        ])
        #expect(problems.map(\.code) == ["duplicate"] || problems.map(\.code) == ["ambiguous"])
        #expect(problems.first?.message.contains("/a(/b)(/c) as /a/c, keeping group 2, dropping group 1") == true, "\(problems)")
    }

    @Test func requiredIsDecidedPerAlias() throws {
        let m = try Fixtures.compile([#"{"name": "c", "patterns": ["/conversations/about", "/artist/:kind/:section/artwork"], "destination": "C", "params": {"section": {"type": "slug"}}}"#])
        #expect(m.resolve("/conversations/about").status == .matched)
        #expect(m.resolve("/conversations/about?section=x").paramsText == ["section": "\"x\""])
        #expect(m.resolve("/artist/a/b/artwork").paramsText == ["kind": "\"a\"", "section": "\"b\""])
        // Bound by every alias: required by default, and written so in the canonical manifest.
        let both = try Fixtures.compile([#"{"name": "c", "patterns": ["/a/:id", "/b/:id"], "destination": "C", "params": {"id": {"type": "int"}}}"#])
        #expect(String(decoding: both.canonicalBytes, as: UTF8.self).contains(#""id":{"required":true,"type":"int"}"#))
        #expect(String(decoding: m.canonicalBytes, as: UTF8.self).contains(#""section":{"required":false,"type":"slug"}"#))
    }

    @Test func aRedirectToAHostRestrictedRouteIsAWarningNamingWhereItCannotLand() throws {
        let m = try Fixtures.compile([
            #"{"name": "live", "hosts": ["live.artsy.net"], "pattern": "/auction/:id", "destination": "Live"}"#,
            #"{"name": "old", "pattern": "/sale/:id", "redirect": "/auction/:id"}"#,
        ])
        let warning = try #require(m.warnings.first { $0.code == "redirect-target-hosts" })
        #expect(warning.severity == .warning && warning.pointer == "/routes/1/redirect")
        #expect(warning.message.contains("URLs without a host") && warning.message.contains("artsy.net") && !warning.message.contains("live.artsy.net,"))
        #expect(m.resolve("https://live.artsy.net/sale/x").destination == "Live")
        #expect(m.resolve("/sale/x").status == .fallback)
    }

    @Test func aTrailingSlashInAPatternIsIgnoredWithAWarning() throws {
        let m = try Fixtures.compile([#"{"name": "artist", "pattern": "/artist/", "destination": "A"}"#])
        #expect(m.warnings.map(\.code) == ["trailing-slash"])
        #expect(m.resolve("/artist").status == .matched)
    }

    @Test func tooManyExpansionsAreRefusedBeforeAnythingIsBuilt() {
        let route = #"{"name": "r%d", "pattern": "/r%d(/a)(/b)(/c)(/d)(/e)(/f)(/g)(/h)", "destination": "R"}"#
        let routes = (0..<1200).map { String(format: route, $0, $0) }
        let clock = ContinuousClock()
        var problems: [ManifestDiagnostic] = []
        let elapsed = clock.measure { problems = Fixtures.problems(routes) }
        #expect(problems.map(\.code) == ["too-many-expansions"])
        #expect(problems.first?.message.contains("307200") == true)
        #expect(elapsed < .seconds(2), "\(elapsed)")
        // Under the cap, the same routes load.
        #expect(Fixtures.problems(Array(routes.prefix(20))).isEmpty)
    }

    @Test func echoShapedFeaturesAndMessagesLoadQuietlyOthersWarn() throws {
        let route = [#"{"name": "a", "pattern": "/a", "destination": "A"}"#]
        let echo = try Fixtures.compile(route, extra: #""features": [{"name": "ipad_vir", "value": false}], "messages": [{"name": "LiveAuctionsCurrentWebSocketVersion", "content": "3"}]"#)
        #expect(echo.warnings.isEmpty)
        let other = try Fixtures.compile(route, extra: #""features": {"x": {"enabled": true}}, "messages": [{"name": "m", "content": 3}]"#)
        #expect(other.warnings.map(\.code) == ["echo-shape", "echo-shape"])
        #expect(other.warnings.map(\.pointer) == ["/features", "/messages/0"])
    }
}
