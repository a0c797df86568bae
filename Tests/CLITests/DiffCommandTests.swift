import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
import TestSupport

/// `switchboard diff` run as a process on pairs of manifests, one rule each.
@Suite(.serialized)
struct DiffCommandTests {
    /// A manifest of `routes` (JSON objects) with two hosts and an app scheme.
    static func manifest(_ routes: [String], hosts: String = #"["example.com", "m.example.com"]"#, extra: String = "") -> String {
        """
        {"version": 1, "hosts": \(hosts), "schemes": ["ex"],\(extra)
         "routes": [
        \(routes.joined(separator: ",\n"))
         ]}
        """
    }

    static let artist = #"{"name": "artist", "pattern": "/artist/:id", "destination": "Artist"}"#
    static let show = #"{"name": "show", "pattern": "/show/:id", "destination": "Show"}"#
    static let home = #"{"name": "home", "pattern": "/", "destination": "Home"}"#

    struct Diff {
        let status: Int32
        let stdout: String
        let stderr: String
        /// The JSON report's outcomes: severity, url, context, fingerprint...
        var outcomes: [[String: Any]] = []
        var declarations: [[String: Any]] = []

        func urls(_ severity: String) -> Set<String> {
            Set(outcomes.filter { $0["severity"] as? String == severity }.compactMap { $0["url"] as? String })
        }
    }

    /// Runs `diff OLD NEW` in JSON and returns the parsed report with the exit status.
    static func diff(_ old: String, _ new: String, _ more: [String] = []) throws -> Diff {
        let a = try CLI.temporaryFile(old, name: "old.json"), b = try CLI.temporaryFile(new, name: "new.json")
        let out = try CLI.run(["diff", a, b, "--format", "json"] + more)
        var diff = Diff(status: out.status, stdout: out.stdout, stderr: out.stderr)
        if let report = try? JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any] {
            diff.outcomes = report["outcomes"] as? [[String: Any]] ?? []
            diff.declarations = report["declarations"] as? [[String: Any]] ?? []
        }
        return diff
    }

    @Test func aManifestWithItselfHasNoChanges() throws {
        let out = try CLI.run(["diff", "Config/routes.json", "Config/routes.json"])
        #expect(out.status == 0, "\(out.stdout)\(out.stderr)")
        #expect(out.stdout.hasPrefix("0 breaking, 0 changed, 0 added over 0 URLs; 0 declaration changes; "), "\(out.stdout)")
    }

    @Test func aFileAndTheCanonicalManifestServedOfItDoNotDiffer() throws {
        let server = try CLI.Running(["serve", "--config", "Config/routes.json", "--port", "0"])
        defer { _ = server.stop() }
        #expect(server.waitFor("serving on 127.0.0.1:"), "\(server.log)")
        let after = try #require(server.log.split(separator: "serving on 127.0.0.1:").last)
        let port = try #require(Int(String(after.prefix { $0.isNumber })))
        let out = try CLI.run(["diff", "Config/routes.json", "http://127.0.0.1:\(port)"])
        #expect(out.status == 0, "\(out.stdout)\(out.stderr)")
        #expect(out.stdout.hasPrefix("0 breaking, 0 changed, 0 added over 0 URLs; 0 declaration changes; "), "\(out.stdout)")
    }

    @Test func aTenThousandRouteTableWithItselfHasNoChanges() async throws {
        var routes: [String] = []
        for k in 0..<1_000 {
            routes += [
                #"{"name": "s\#(k)", "pattern": "/s\#(k)", "destination": "Index\#(k)"}"#,
                #"{"name": "s\#(k)-item", "pattern": "/s\#(k)/:id", "destination": "Item\#(k)", "params": {"id": {"type": "slug"}}}"#,
                #"{"name": "s\#(k)-page", "pattern": "/s\#(k)/:name(/:tab)", "destination": "Page\#(k)", "params": {"tab": {"type": "enum", "values": ["a", "b"]}}}"#,
                #"{"name": "s\#(k)-n", "pattern": "/s\#(k)/n/:n", "destination": "N\#(k)", "params": {"n": {"type": "int"}}}"#,
                #"{"name": "s\#(k)-order", "pattern": "/s\#(k)/orders/:u", "destination": "Order\#(k)", "params": {"u": {"type": "uuid"}}}"#,
                #"{"name": "s\#(k)-nested", "pattern": "/s\#(k)/:id/c/:cid", "destination": "C\#(k)", "params": {"cid": {"type": "int"}}, "since": "6.0.0"}"#,
                #"{"name": "s\#(k)-search", "pattern": "/s\#(k)/search", "destination": "Search\#(k)", "params": {"q": {"required": true}}}"#,
                #"{"name": "s\#(k)-web", "pattern": "/s\#(k)/help/*rest", "destination": "Help\#(k)", "presentation": "web"}"#,
                #"{"name": "s\#(k)-legacy", "pattern": "/legacy-s\#(k)/:id", "redirect": "/s\#(k)/:id"}"#,
                #"{"name": "s\#(k)-variant", "pattern": "/s\#(k)/f/:slug", "destination": "F\#(k)", "variants": [{"when": {"idiom": "tablet"}, "presentation": "modal"}]}"#,
            ]
        }
        let path = try CLI.temporaryFile(Self.manifest(routes))
        let out = try await Subprocess.offThePool { try CLI.run(["diff", path, path]) }
        #expect(out.status == 0, "\(out.stderr)")
        #expect(out.stdout.hasPrefix("0 breaking, 0 changed, 0 added over 0 URLs; 0 declaration changes; "), "\(out.stdout)")
    }

    @Test func aRemovedRouteBreaksItsURLsOnEveryHostAndScheme() throws {
        let d = try Self.diff(Self.manifest([Self.artist, Self.show]), Self.manifest([Self.artist]))
        #expect(d.status == 1)
        #expect(d.urls("breaking") == ["/show/sample", "https://example.com/show/sample", "https://m.example.com/show/sample", "ex://show/sample"])
        #expect(d.outcomes.allSatisfy { ($0["new"] as? [String: Any])?["status"] as? String == "fallback" })
        #expect(d.declarations.map { "\($0["kind"]!) \($0["route"]!)" } == ["removed show"])
    }

    @Test func aTightenedParamTypeBreaksTheValuesItNowRefusesAndChangesTheOthers() throws {
        let tightened = #"{"name": "show", "pattern": "/show/:id", "destination": "Show", "params": {"id": {"type": "int"}}}"#
        let d = try Self.diff(Self.manifest([Self.show]), Self.manifest([tightened]))
        #expect(d.status == 1)
        #expect(d.urls("breaking").contains("/show/sample"))
        #expect(d.urls("breaking").contains("/show/4x2"))
        // 42 still opens Show, now as a number.
        #expect(d.urls("changed") == ["/show/42", "https://example.com/show/42", "https://m.example.com/show/42", "ex://show/42"])
        #expect(d.declarations.map { $0["field"] as? String } == ["params"])
    }

    @Test func aRedirectOrAnAliasThatKeepsTheDestinationIsNotBreaking() throws {
        let works = #"{"name": "artist-works", "pattern": "/artist/:id/works", "destination": "Artist"}"#
        let redirect = #"{"name": "artist-works", "pattern": "/artist/:id/works", "redirect": "/artist/:id"}"#
        let viaRedirect = try Self.diff(Self.manifest([Self.artist, works]), Self.manifest([Self.artist, redirect]))
        #expect(viaRedirect.status == 0, "\(viaRedirect.stdout)")
        #expect(viaRedirect.urls("breaking").isEmpty)
        #expect(viaRedirect.urls("changed").contains("/artist/sample/works"))

        let alias = #"{"name": "artist", "patterns": ["/artist/:id", "/artist/:id/works"], "destination": "Artist"}"#
        let viaAlias = try Self.diff(Self.manifest([Self.artist, works]), Self.manifest([alias]))
        #expect(viaAlias.status == 0, "\(viaAlias.stdout)")
        #expect(viaAlias.urls("breaking").isEmpty)
        #expect(viaAlias.declarations.contains { $0["kind"] as? String == "removed" && $0["route"] as? String == "artist-works" })
    }

    @Test func aRenameIsOneDeclarationAndNoBreak() throws {
        let renamed = #"{"name": "artist-page", "pattern": "/artist/:id", "destination": "Artist"}"#
        let d = try Self.diff(Self.manifest([Self.artist]), Self.manifest([renamed]))
        #expect(d.status == 0)
        #expect(d.declarations.count == 1)
        #expect(d.declarations.first?["kind"] as? String == "renamed")
        #expect(d.declarations.first?["newName"] as? String == "artist-page")
        #expect(!d.urls("changed").isEmpty && d.urls("breaking").isEmpty)
    }

    @Test func aChangeInSomeContextsSaysWhich() throws {
        let old = #"{"name": "series", "pattern": "/series/:id", "destination": "Series", "since": "6.5.0"}"#
        let new = #"{"name": "series", "pattern": "/series/:id", "destination": "Series", "since": "7.2.0"}"#
        let d = try Self.diff(Self.manifest([old]), Self.manifest([new]))
        #expect(d.status == 1)
        let change = try #require(d.outcomes.first { $0["url"] as? String == "/series/sample" })
        #expect(change["severity"] as? String == "breaking")
        #expect(change["context"] as? String == "6.5.0 <= appVersion < 7.2.0")

        let ios = #"{"name": "artist", "pattern": "/artist/:id", "destination": "Artist", "variants": [{"when": {"platform": "ios"}, "destination": "ArtistWeb"}]}"#
        let p = try Self.diff(Self.manifest([Self.artist]), Self.manifest([ios]))
        let onIOS = try #require(p.outcomes.first { $0["url"] as? String == "/artist/sample" })
        #expect(onIOS["context"] as? String == "on ios")
        #expect(onIOS["severity"] as? String == "breaking")
        // The text report says it the way a reviewer reads it.
        let text = try CLI.run(["diff", try CLI.temporaryFile(Self.manifest([old])), try CLI.temporaryFile(Self.manifest([new]))])
        #expect(text.stdout.contains("breaking series: matched series -> Series push {\"id\":\"sample\"} => fallback -> WebView web"), "\(text.stdout)")
        #expect(text.stdout.contains("/series/sample [6.5.0 <= appVersion < 7.2.0]"), "\(text.stdout)")
    }

    @Test func hostsAndSchemesThatGoAwayBreakTheirLinks() throws {
        let d = try Self.diff(Self.manifest([Self.artist]), Self.manifest([Self.artist], hosts: #"["example.com"]"#))
        #expect(d.urls("breaking") == ["https://m.example.com/artist/sample"])
        let change = try #require(d.outcomes.first)
        #expect((change["new"] as? [String: Any])?["status"] as? String == "external")
        #expect(d.declarations.contains { $0["field"] as? String == "hosts" })

        let noScheme = Self.manifest([Self.artist]).replacingOccurrences(of: #""schemes": ["ex"]"#, with: #""schemes": []"#)
        let s = try Self.diff(Self.manifest([Self.artist]), noScheme)
        #expect(s.urls("breaking") == ["ex://artist/sample"])
    }

    @Test func aFallbackThatNowMatchesIsAddedAndDoesNotFail() throws {
        let d = try Self.diff(Self.manifest([Self.artist]), Self.manifest([Self.artist, Self.show]))
        #expect(d.status == 0)
        #expect(d.urls("added").contains("/show/sample"))
        #expect(d.urls("breaking").isEmpty && d.urls("changed").isEmpty)
        let a = try CLI.temporaryFile(Self.manifest([Self.artist])), b = try CLI.temporaryFile(Self.manifest([Self.artist, Self.show]))
        #expect(try CLI.run(["diff", a, b, "--fail-on", "any"]).status == 1)
        #expect(try CLI.run(["diff", a, b, "--fail-on", "changed"]).status == 0)
    }

    @Test func presentationChangesAreChangedAndFailOnlyWhenAskedTo() throws {
        let modal = #"{"name": "show", "pattern": "/show/:id", "destination": "Show", "presentation": "modal"}"#
        let d = try Self.diff(Self.manifest([Self.show]), Self.manifest([modal]))
        #expect(d.status == 0)
        #expect(d.urls("changed").contains("/show/sample") && d.urls("breaking").isEmpty)
        #expect(try Self.diff(Self.manifest([Self.show]), Self.manifest([modal]), ["--fail-on", "changed"]).status == 1)
        #expect(try Self.diff(Self.manifest([Self.artist, Self.show]), Self.manifest([Self.artist]), ["--fail-on", "none"]).status == 0)
    }

    @Test func withdrawingAUniversalLinkIsBreakingForHTTPLinksOnly() throws {
        let off = #"{"name": "show", "pattern": "/show/:id", "destination": "Show", "universalLink": false}"#
        let d = try Self.diff(Self.manifest([Self.show]), Self.manifest([off]))
        #expect(d.status == 1)
        #expect(d.urls("breaking") == ["https://example.com/show/sample", "https://m.example.com/show/sample"])
        #expect(d.declarations.first?["breaking"] as? Bool == true)
    }

    @Test func casesFilesAreReplayedInTheirOwnContext() throws {
        let old = #"{"name": "series", "pattern": "/series/:id", "destination": "Series", "since": "6.5.0"}"#
        let new = #"{"name": "series", "pattern": "/series/:id", "destination": "Series", "since": "7.2.0"}"#
        let cases = try CLI.temporaryFile("/series/warhol [platform=ios appVersion=7.0.0] -> Series\n", name: "cases.txt")
        let d = try Self.diff(Self.manifest([old]), Self.manifest([new]), ["--cases", cases])
        let change = try #require(d.outcomes.first { $0["url"] as? String == "/series/warhol" })
        #expect(change["context"] as? String == "[platform=ios appVersion=7.0.0]")
        #expect(change["file"] as? String == cases)
        #expect(change["line"] as? Int == 1)
    }

    @Test func anIgnoreFileAcceptsAKnownBreakWithItsReason() throws {
        let a = try CLI.temporaryFile(Self.manifest([Self.artist, Self.show])), b = try CLI.temporaryFile(Self.manifest([Self.artist]))
        let report = try Self.diff(Self.manifest([Self.artist, Self.show]), Self.manifest([Self.artist]))
        // Four URLs (the path, two hosts, the scheme), one change of one route: one fingerprint.
        let fingerprints = report.outcomes.compactMap { $0["fingerprint"] as? String }
        #expect(fingerprints.count == 4 && Set(fingerprints).count == 1, "\(fingerprints)")
        // Fingerprints are stable from run to run, and across releases: this one is written
        // down (route, outcome before and after, URL shape; no sample value or version).
        #expect(fingerprints[0] == "c0085cf6a6a21a30", "the fingerprint of removing /show/:id changed: \(fingerprints[0])")
        let all = try CLI.temporaryFile("# shows retired\n\(fingerprints[0]) shows moved to the web", name: "ignore.txt")
        let out = try CLI.run(["diff", a, b, "--ignore", all])
        #expect(out.status == 0, "\(out.stdout)")
        #expect(out.stdout.contains("ignored:"))
        #expect(out.stdout.contains("shows moved to the web"))
        #expect(out.stdout.contains("0 breaking, 0 changed, 0 added (1 ignored) over 0 URLs"), "\(out.stdout)")
        let noReason = try CLI.temporaryFile(fingerprints[0] + "\n", name: "ignore.txt")
        let refused = try CLI.run(["diff", a, b, "--ignore", noReason])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("line 1: give the reason"))
    }

    @Test func unreadableInputExits2() throws {
        let good = try CLI.temporaryFile(Self.manifest([Self.artist]))
        #expect(try CLI.run(["diff", good, "/nonexistent.json"]).status == 2)
        // An invalid manifest is a finding, as `check` reports it: exit 1.
        #expect(try CLI.run(["diff", try CLI.temporaryFile("{"), good]).status == 1)
        #expect(try CLI.run(["diff", good, "http://127.0.0.1:1"]).status == 2)
        #expect(try CLI.run(["diff", good, good, "--cases", "/nonexistent.txt"]).status == 2)
    }

    @Test func markdownAndJUnitCarryTheChanges() throws {
        let hostile = #"{"name": "x|</td><script>alert(1)</script>", "pattern": "/show/:id", "destination": "Show"}"#
        let a = try CLI.temporaryFile(Self.manifest([hostile])), b = try CLI.temporaryFile(Self.manifest([Self.artist]))
        let md = try CLI.run(["diff", a, b, "--format", "markdown"])
        #expect(md.status == 1)
        #expect(md.stdout.contains("| 🔴 breaking | x\\|&lt;/td&gt;&lt;script&gt;alert\\(1\\)&lt;/script&gt; (removed, was /show/:id) | "), "\(md.stdout)")
        #expect(md.stdout.contains("<code>/show/sample</code>"), "\(md.stdout)")
        #expect(!md.stdout.contains("<script>") && !md.stdout.contains("x|<"))
        let junit = try CLI.run(["diff", a, b, "--format", "junit"])
        let document = try XMLDocument(data: Data(junit.stdout.utf8))
        // One finding a route and change: the show URLs break, the artist URLs are added.
        #expect(try document.nodes(forXPath: "//testcase").count == 2, "\(junit.stdout)")
        #expect(try document.nodes(forXPath: "//failure").count == 1)
    }
}
