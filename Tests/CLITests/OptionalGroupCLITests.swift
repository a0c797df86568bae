import Foundation
import Testing
import TestSupport

/// `routes`, `resolve --explain` and the exports see every expansion of a pattern with
/// optional groups, not only its prefixes.
struct OptionalGroupCLITests {
    static let manifest = #"{"version": 1, "hosts": ["artsy.net"], "routes": [{"name": "p", "pattern": "/path/:thing(/new)(/next/:other)", "destination": "P"}]}"#

    @Test func routesAndExportsListEveryExpansion() throws {
        let file = try CLI.temporaryFile(Self.manifest)
        let routes = try CLI.run(["routes", "--config", file])
        #expect(routes.status == 0)
        for path in ["/path/:thing ", "/path/:thing/new ", "/path/:thing/new/next/:other ", "/path/:thing/next/:other "] {
            #expect(routes.stdout.contains(path), "\(path) in \(routes.stdout)")
        }
        let aasa = try CLI.run(["export", "aasa", "--app-id", "TEAM.app", "--config", file])
        #expect(aasa.stdout.contains(#""/path/*/next/*""#), "\(aasa.stdout)")
        let links = try CLI.run(["export", "app-links", "--package", "net.artsy", "--config", file])
        #expect(links.stdout.contains("/path/.*/next/.*"), "\(links.stdout)")
        let explained = try CLI.run(["resolve", "--config", file, "--explain", "/path/x/next/y"])
        #expect(explained.stdout.contains(#""status":"matched""#) && explained.stdout.contains(#""other":"y""#), "\(explained.stdout)")
    }
}
