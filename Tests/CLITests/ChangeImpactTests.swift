import Foundation
import Testing

/// `switchboard diff` judged as a release manager would (issue 51): a link moving from a web
/// view to a screen of the app is an improvement, the fallback has a face, an accepted
/// change cannot hide another, one change is one finding, annotations go on the NEW file,
/// and an invalid manifest speaks in the chosen format.
@Suite(.serialized)
struct ChangeImpactTests {
    /// A table as most apps have one: native routes, and a catch-all that opens any other
    /// link of the site in a web view.
    static func table(_ routes: [String], fallback: String = "") -> String {
        DiffCommandTests.manifest(routes + [#"{"name": "web", "pattern": "/*", "destination": "WebView", "presentation": "web"}"#], extra: fallback)
    }

    static let artwork = #"{"name": "artwork", "pattern": "/artwork/:id", "destination": "Artwork"}"#
    static let artistShows = #"{"name": "artist-shows", "pattern": "/artist/:id/shows", "destination": "ArtistShows"}"#

    @Test func aNewNativeRouteAndARedirectFromWebToNativeAreAddedAndPass() throws {
        let feature = #"{"name": "new-feature", "pattern": "/new-feature/:id", "destination": "NewFeature"}"#
        let d = try DiffCommandTests.diff(Self.table([Self.artwork]), Self.table([Self.artwork, feature]))
        #expect(d.status == 0, "\(d.stdout)")
        #expect(d.urls("added").contains("/new-feature/sample"))
        #expect(d.urls("breaking").isEmpty)
        let works = #"{"name": "legacy-works", "pattern": "/works/:id", "redirect": "/artwork/:id"}"#
        let r = try DiffCommandTests.diff(Self.table([Self.artwork]), Self.table([Self.artwork, works]))
        #expect(r.status == 0, "\(r.stdout)")
        let moved = try #require(r.outcomes.first { $0["url"] as? String == "/works/sample" })
        #expect(moved["severity"] as? String == "added")
        // The redirect shows in the outcome.
        #expect((moved["new"] as? [String: Any])?["via"] as? [String] == ["legacy-works"])
        let text = try CLI.run(["diff", try CLI.temporaryFile(Self.table([Self.artwork])), try CLI.temporaryFile(Self.table([Self.artwork, works]))])
        #expect(text.stdout.contains("matched web -> WebView web"), "\(text.stdout)")
        #expect(text.stdout.contains("=> matched artwork via legacy-works -> Artwork push"), "\(text.stdout)")
    }

    /// Eigen's own table (137 routes, a catch-all `web-rest` opening any other link in a
    /// web view), edited as its release manager would.
    @Test func realisticEditsOfEigensTable() throws {
        let eigen = try String(contentsOfFile: RealTableTests.table, encoding: .utf8)
        func edited(_ routes: String) throws -> String {
            try CLI.temporaryFile(eigen.replacingOccurrences(of: "\"routes\": [", with: "\"routes\": [\n    " + routes))
        }
        let original = try CLI.temporaryFile(eigen)
        // A new native screen, and old web links redirected to a native one: improvements.
        let feature = try edited(#"{"name": "new-feature", "pattern": "/new-feature/:id", "destination": "NewFeature"},"#)
        let works = try edited(#"{"name": "legacy-works", "pattern": "/works/:id", "redirect": "/artwork/:id"},"#)
        for next in [feature, works] {
            let out = try CLI.run(["diff", original, next, "--format", "json"])
            #expect(out.status == 0, "\(out.stdout)")
            let report = try #require(try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any])
            let summary = try #require(report["summary"] as? [String: Any])
            #expect(summary["breaking"] as? Int == 0 && (summary["added"] as? Int ?? 0) >= 1, "\(summary)")
        }
        // Retiring the catch-all leaves those links to the fallback, another web view: a
        // change, not a break; retiring a native screen breaks its links.
        let catchAll = #",\#n    {"name": "web-rest", "pattern": "/*", "destination": "ReactWebView", "presentation": {"style": "web"}}"#
        #expect(eigen.contains(catchAll))
        let retired = try CLI.run(["diff", original, try CLI.temporaryFile(eigen.replacingOccurrences(of: catchAll, with: ""))])
        #expect(retired.status == 0, "\(retired.stdout.suffix(2_000))")
        #expect(retired.stdout.contains("\n0 breaking, "), "\(retired.stdout.suffix(2_000))")
        let withoutArtwork = try CLI.temporaryFile(eigen.replacingOccurrences(
            of: #"{"name": "artwork-artworkid", "pattern": "/artwork/:artworkID", "destination": "Artwork"},"#, with: ""))
        let broken = try CLI.run(["diff", original, withoutArtwork])
        #expect(broken.status == 1)
        #expect(broken.stdout.contains("breaking artwork-artworkid (removed, was /artwork/:artworkID): matched artwork-artworkid -> Artwork push"), "\(broken.stdout)")
        #expect(broken.stdout.contains("=> matched web-rest -> ReactWebView web"), "\(broken.stdout)")
    }

    @Test func nativeToWebIsBreaking() throws {
        let d = try DiffCommandTests.diff(Self.table([Self.artwork, Self.artistShows]), Self.table([Self.artwork]))
        #expect(d.status == 1)
        let change = try #require(d.outcomes.first { $0["url"] as? String == "/artist/sample/shows" })
        #expect(change["severity"] as? String == "breaking")
        #expect((change["new"] as? [String: Any])?["route"] as? String == "web")
    }

    @Test func removingACatchAllThatLooksLikeTheFallbackIsNotBreaking() throws {
        // The fallback is the same web view, presented alike: the user sees no difference.
        let d = try DiffCommandTests.diff(Self.table([Self.artwork]), DiffCommandTests.manifest([Self.artwork]))
        #expect(d.status == 0, "\(d.stdout)")
        #expect(d.urls("breaking").isEmpty)
        let change = try #require(d.outcomes.first { $0["url"] as? String == "/new-feature/sample" || ($0["url"] as? String)?.hasPrefix("/") == true })
        #expect(change["severity"] as? String == "changed")
        let fallback = try #require(change["new"] as? [String: Any])
        #expect(fallback["status"] as? String == "fallback")
        #expect(fallback["destination"] as? String == "WebView")
        #expect((fallback["presentation"] as? [String: Any])?["style"] as? String == "web")
        // A fallback with another face is not the same screen: the catch-all's links break
        // only where they were native; a web page for another web page is a change.
        let other = #""fallback": {"destination": "Browser", "presentation": "external"},"#
        let e = try DiffCommandTests.diff(Self.table([Self.artwork]), DiffCommandTests.manifest([Self.artwork], extra: other))
        #expect(e.urls("breaking").isEmpty && !e.urls("changed").isEmpty, "\(e.stdout)")
    }

    @Test func anAcceptedChangeDoesNotHideALaterDifferentOneAndStaleEntriesAreReported() throws {
        let renamed = Self.artistShows.replacingOccurrences(of: "\"ArtistShows\"", with: "\"ArtistShows2\"")
        let home = Self.artistShows.replacingOccurrences(of: "\"ArtistShows\"", with: "\"Home\"")
        let v1 = try CLI.temporaryFile(Self.table([Self.artistShows])), v2 = try CLI.temporaryFile(Self.table([renamed]))
        let v3 = try CLI.temporaryFile(Self.table([home]))
        let reviewed = try DiffCommandTests.diff(Self.table([Self.artistShows]), Self.table([renamed]))
        let fingerprints = Set(reviewed.outcomes.compactMap { $0["fingerprint"] as? String })
        // The rename on every host and scheme: one change, one line to accept it.
        #expect(fingerprints.count == 1, "\(fingerprints)")
        let ignore = try CLI.temporaryFile("\(fingerprints.first ?? "") ArtistShows is ArtistShows2 now (RELEASE-12)\n", name: "ignore.txt")
        #expect(try CLI.run(["diff", v1, v2, "--ignore", ignore]).status == 0)
        // A later, different change of the same URLs is not covered by it.
        let later = try CLI.run(["diff", v1, v3, "--ignore", ignore])
        #expect(later.status == 1, "\(later.stdout)")
        #expect(later.stdout.contains("=> matched artist-shows -> Home push"), "\(later.stdout)")
        #expect(later.stdout.contains("stale ignore entries"), "\(later.stdout)")
        #expect(later.stdout.contains("ignore.txt:1: \(fingerprints.first ?? "")"), "\(later.stdout)")
        // An entry that matches nothing is reported, and fails the run with --strict-ignore.
        let same = try CLI.run(["diff", v1, v1, "--ignore", ignore])
        #expect(same.status == 0 && same.stdout.contains("1 stale ignore entry"), "\(same.stdout)")
        #expect(try CLI.run(["diff", v1, v1, "--ignore", ignore, "--strict-ignore"]).status == 1)
        let github = try CLI.run(["diff", v1, v1, "--ignore", ignore, "--format", "github"])
        #expect(github.stdout.contains("::warning file=\(ignore),line=1,col=1,title=stale ignore entry::"), "\(github.stdout)")
    }

    @Test func oneChangeOfAWildcardRouteIsOneFindingAndTheReportStaysSmall() throws {
        let hosts = #"["example.com", "m.example.com", "www2.example.com", "staging.example.com"]"#
        func wildcard(_ destination: String) -> String {
            #"{"name": "viewing-room", "pattern": "/viewing-room/*rest", "destination": "ViewingRoom", "variants": [{"when": {"platform": "ios"}, "destination": "\#(destination)"}, {"when": {"idiom": "tablet"}, "presentation": "modal"}]}"#
        }
        let old = DiffCommandTests.manifest([wildcard("ViewingRoomIOS")], hosts: hosts), new = DiffCommandTests.manifest([wildcard("ViewingRoomNew")], hosts: hosts)
        let a = try CLI.temporaryFile(old), b = try CLI.temporaryFile(new)
        let github = try CLI.run(["diff", a, b, "--format", "github"])
        #expect(github.status == 1)
        let annotations = github.stdout.split(separator: "\n").filter { $0.hasPrefix("::error") || $0.hasPrefix("::warning") }
        #expect((1...3).contains(annotations.count), "\(github.stdout)")
        let markdown = try CLI.run(["diff", a, b, "--format", "markdown"])
        #expect(markdown.stdout.utf16.count < 60_000)
        // A change that touches thousands of routes still gives a comment GitHub takes, saying
        // what it left out.
        let many = (0..<2_000).map { #"{"name": "r\#($0)", "pattern": "/r\#($0)/:id", "destination": "R\#($0)"}"# }
        let big = try CLI.run(["diff", try CLI.temporaryFile(DiffCommandTests.manifest(many)), try CLI.temporaryFile(DiffCommandTests.manifest([many[0]])),
                               "--format", "markdown"])
        #expect(big.stdout.utf16.count < 60_000, "\(big.stdout.utf16.count) characters")
        #expect(big.stdout.contains("more findings left out"), "\(big.stdout.suffix(500))")
    }

    @Test func aRemovedRouteIsAnnotatedOnTheNewFileNextToWhereItStood() throws {
        let old = DiffCommandTests.manifest([Self.artwork, Self.artistShows, DiffCommandTests.home])
        let new = DiffCommandTests.manifest([Self.artwork, DiffCommandTests.home])
        let a = try CLI.temporaryFile(old, name: "old.json"), b = try CLI.temporaryFile(new, name: "new.json")
        let out = try CLI.run(["diff", a, b, "--format", "github"])
        let lines = out.stdout.split(separator: "\n")
        let removed = try #require(lines.first { $0.contains("title=breaking links of route artist-shows") })
        #expect(removed.contains("file=\(b),"), "\(removed)")
        #expect(!out.stdout.contains("file=\(a)"), "annotations name the OLD file: \(out.stdout)")
        // On the line of the route before it, artwork (line 3 of the new file).
        #expect(removed.contains(",line=3,"), "\(removed)")
        #expect(removed.contains("removed, was /artist/:id/shows"), "\(removed)")
    }

    @Test func anInvalidManifestIsReportedInTheChosenFormat() throws {
        let good = try CLI.temporaryFile(Self.table([Self.artwork]))
        let bad = try CLI.temporaryFile("{\"version\": 1,\n \"routes\": [{\"name\": \"a\", \"pattern\": \"no-slash\", \"destination\": \"A\"}]}", name: "new.json")
        let github = try CLI.run(["diff", good, bad, "--format", "github"])
        #expect(github.status == 1)
        #expect(github.stdout.contains("::error file=\(bad),line=2,"), "\(github.stdout)\(github.stderr)")
        let json = try CLI.run(["diff", good, bad, "--format", "json"])
        #expect(json.status == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["valid"] as? Bool == false)
        let text = try CLI.run(["diff", good, bad])
        #expect(text.status == 1 && text.stdout.contains("invalid-pattern"), "\(text.stdout)")
    }

    @Test func smallerNoise() throws {
        // universalLink: false changes http(s) links only; app-scheme and path URLs open the app alike.
        let off = DiffCommandTests.show.replacingOccurrences(of: "\"Show\"}", with: "\"Show\", \"universalLink\": false}")
        let d = try DiffCommandTests.diff(DiffCommandTests.manifest([DiffCommandTests.show]), DiffCommandTests.manifest([off]))
        #expect(d.urls("changed").isEmpty, "\(d.urls("changed"))")
        #expect(d.urls("breaking") == ["https://example.com/show/sample", "https://m.example.com/show/sample"])
        // A case that the corpus replays already is listed once.
        let cases = try CLI.temporaryFile("/show/sample -> Show\n", name: "cases.txt")
        let c = try DiffCommandTests.diff(DiffCommandTests.manifest([DiffCommandTests.show]), DiffCommandTests.manifest([DiffCommandTests.artist]), ["--cases", cases])
        #expect(c.outcomes.filter { $0["url"] as? String == "/show/sample" }.count == 1)
        // The summary counts resolutions as resolutions.
        #expect(try CLI.run(["diff", "Config/routes.json", "Config/routes.json"]).stdout.contains(" resolutions"))
        // Help lists the formats each command takes, and only those.
        let check = try CLI.run(["help", "check"]), validate = try CLI.run(["help", "validate"]), diff = try CLI.run(["help", "diff"])
        for help in [check.stdout, validate.stdout] {
            #expect(!help.contains("markdown") && !help.contains("junit,") && help.contains("github"), "\(help)")
        }
        #expect(diff.stdout.contains("markdown") && diff.stdout.contains("junit"))
        #expect(try CLI.run(["check", "Config/routes.json", "--format", "markdown"]).status == 2)
    }
}
