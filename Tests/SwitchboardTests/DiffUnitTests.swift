@testable import Switchboard
@testable import SwitchboardTooling
import Testing

/// `URLCorpus`, `ContextSpace` and `ManifestDiff` called directly (the CLI tests run them
/// through `switchboard diff` as a process).
struct DiffUnitTests {
    static let routes = [
        #"{"name": "artist", "pattern": "/artist/:id(/:tab)", "destination": "Artist", "params": {"tab": {"type": "enum", "values": ["works", "shows"]}, "sort": {"type": "int", "required": true}}}"#,
        #"{"name": "live", "hosts": ["live.artsy.net"], "pattern": "/*rest", "destination": "Live"}"#,
    ]

    @Test func theCorpusCoversEveryExpansionValueHostAndScheme() throws {
        let m = try Fixtures.compile(Self.routes)
        let items = URLCorpus(m.manifest).items
        let artist = items.filter { $0.route == 0 }
        // One base URL per expansion, first of its expansion, with the required query param.
        let bases = artist.filter(\.isBase).map(\.url)
        #expect(bases == ["/artist/sample/works?sort=42", "/artist/sample?sort=42"])
        let urls = Set(artist.map(\.url))
        #expect(urls.contains("/artist/sample/shows?sort=42"))                      // every other enum value
        #expect(artist.contains { $0.shape.hasSuffix("tab refused") })               // a value the type refuses
        #expect(artist.contains { $0.shape.hasSuffix("without ?sort") && !$0.url.contains("sort=") })
        #expect(artist.contains { $0.shape.hasSuffix("?sort refused") })
        #expect(urls.contains("https://staging.artsy.net/artist/sample?sort=42"))    // each listed host
        #expect(urls.contains("https://\(URLCorpus.unlistedHost)/artist/sample?sort=42"))
        #expect(urls.contains("artsy://artist/sample?sort=42"))                      // each scheme
        // A host-restricted route on its host, another listed host, and a wildcard with no segment.
        let live = items.filter { $0.route == 1 }
        #expect(live.first?.url.hasPrefix("https://live.artsy.net/") == true)
        #expect(live.contains { $0.shape.hasSuffix("on unlisted artsy.net") })
        #expect(live.contains { $0.url == "https://live.artsy.net/" && $0.shape.hasSuffix("rest empty") })
        // Shapes do not depend on sample values: they name the variation.
        #expect(Set(items.map(\.shape)).count == items.count)
    }

    @Test func versionsJustBelowAndAboveABoundary() {
        #expect(ContextSpace.justBelow(SemanticVersion("7.2.3")!) == SemanticVersion("7.2.2"))
        #expect(ContextSpace.justBelow(SemanticVersion("7.2.0")!) == SemanticVersion("7.1.999"))
        #expect(ContextSpace.justBelow(SemanticVersion("7.0.0")!) == SemanticVersion("6.999.999"))
        #expect(ContextSpace.justBelow(SemanticVersion("0.0.0")!) == nil)
        #expect(ContextSpace.justBelow(SemanticVersion("7.2.0-beta")!) == nil)
        #expect(ContextSpace.justAbove(SemanticVersion("7.2.0")!) == SemanticVersion("7.2.1"))
    }

    @Test func aManifestWithItselfHasNoChanges() throws {
        let m = try Fixtures.compile(Fixtures.spec)
        let diff = ManifestDiff(old: m, new: m)
        #expect(diff.declarations.isEmpty && diff.outcomes.isEmpty)
        #expect(diff.urlCount > 0 && diff.resolutionCount >= diff.urlCount)
        #expect(!diff.fails(.any))
    }

    @Test func aRemovedRouteIsADeclarationAndBreaksItsURLs() throws {
        let old = try Fixtures.compile(Fixtures.spec)
        let new = try Fixtures.compile(Fixtures.spec.filter { !$0.contains(#""name": "artwork""#) && !$0.contains("legacy-work") })
        let diff = ManifestDiff(old: old, new: new)
        #expect(diff.declarations.contains { $0.kind == .removed && $0.route == "artwork" })
        let broken = diff.outcomes.filter { $0.severity == .breaking }
        #expect(broken.contains { $0.url == "/artwork/a-slug_1" && $0.old.route == "artwork" && $0.new.status == .fallback })
        #expect(diff.fails(.breaking))
        // Accepting every break by its fingerprint passes the run.
        #expect(!diff.fails(.breaking, ignoring: Set(broken.map(\.fingerprint))))
    }

    @Test func aPresentationChangeIsChangedInTheContextsItTouches() throws {
        let old = try Fixtures.compile(Fixtures.spec)
        let tabletSheet = Fixtures.spec.map { $0.replacingOccurrences(of: #""presentation": "modal" } ]"#, with: #""presentation": "sheet" } ]"#) }
        let new = try Fixtures.compile(tabletSheet)
        let diff = ManifestDiff(old: old, new: new)
        let changed = try #require(diff.outcomes.first { $0.url == "/artist/sample/works" })
        #expect(changed.severity == .changed)
        #expect(changed.context == "on tablet")
        #expect(changed.contexts.allSatisfy { $0.idiom == "tablet" })
        #expect(!diff.fails(.breaking) && diff.fails(.changed))
        // Fingerprints are stable: the same diff twice gives the same ones.
        #expect(ManifestDiff(old: old, new: new).outcomes.map(\.fingerprint) == diff.outcomes.map(\.fingerprint))
    }
}
