import Foundation
import Testing
import TestSupport

/// `switchboard import echo`: Eigen's bundled Echo table becomes a manifest that loads,
/// and a table whose file order and Switchboard's precedence disagree is reported pair
/// by pair, with an example URL and what to change.
struct ImportCommandTests {
    static func fixture(_ name: String) -> String {
        CLI.packageRoot.appendingPathComponent("Tests/CLITests/Fixtures/\(name)").path
    }

    @Test func eigensEchoTableImportsAndLoads() throws {
        let out = try CLI.run(["import", "echo", Self.fixture("echo-eigen.json"), "--scheme", "artsy", "--host", "artsy.net"])
        #expect(out.status == 0, "\(out.stderr)")
        let manifest = try #require(try JSONSerialization.jsonObject(with: out.stdoutData) as? [String: Any])
        #expect(manifest["version"] as? Int == 12)
        #expect(manifest["updatedAt"] as? String == "2017-02-27T18:21:36.014Z")
        #expect(manifest["hosts"] as? [String] == ["live.artsy.net", "live-staging.artsy.net", "artsy.net"])
        #expect(manifest["schemes"] as? [String] == ["artsy"])
        let routes = try #require(manifest["routes"] as? [[String: Any]])
        #expect(routes.count == 12)
        #expect(routes.first?["destination"] as? String == "ARArtistRoute" && routes.first?["pattern"] as? String == "/artist/:id")
        let file = try CLI.temporaryFile(out.stdout)
        let check = try CLI.run(["check", file])
        #expect(check.status == 0, "\(check.stdout)")
        // The one place Eigen's file order and precedence by specificity disagree.
        #expect(out.stderr.contains("/orders/for-you: Echo's order gave ARFairProfileForYouRoute (/:profile_id/for-you), Switchboard gives ARBuyNowRoute"))
        let resolved = try CLI.run(["resolve", "--config", file, "artsy://auction/x/bid/y", "https://live.artsy.net/x"])
        #expect(resolved.stdout.contains(#""destination":"ARAuctionBidArtworkRoute""#))
        #expect(resolved.stdout.contains(#""url":"https://live.artsy.net/x","status":"fallback""#))
    }

    @Test func conflictsBetweenFileOrderAndSpecificityAreReported() throws {
        let out = try CLI.run(["import", "echo", Self.fixture("echo-conflicts.json"), "--version", "9"])
        #expect(out.status == 0, "\(out.stderr)")
        let notes = out.stderr.split(separator: "\n").map(String.init)
        #expect(notes.contains { $0.contains("/artist/for-you: Echo's order gave ProfileForYou (/:profile_id/for-you), Switchboard gives ArtistTab") })
        #expect(notes.contains { $0.contains(#"add {"name": "ProfileForYou-artist-for-you", "pattern": "/artist/for-you", "destination": "ProfileForYou"}"#) })
        // Two routes of one shape: the later one, which Echo never reached, is left out ...
        #expect(notes.contains { $0.hasPrefix("note: ArtistByID: never reached in Echo either") })
        #expect(notes.contains { $0.hasPrefix("note: ProfileAgain: never reached in Echo either") })
        // ... and where it still wins some URLs, priorities keep Echo's order.
        #expect(notes.contains { $0.contains(#"Gene (/gene/:id) shares a shape with another route: "priority": 2"#) })
        #expect(notes.contains { $0.contains("Bogus has path \"not a path\"") })
        let file = try CLI.temporaryFile(out.stdout)
        let resolved = try CLI.run(["resolve", "--config", file, "/gene/x", "/gene/x/works", "/artist/for-you"])
        let lines = resolved.stdout.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines[0].contains(#""route":{"name":"Gene""#) && lines[1].contains(#""route":{"name":"GeneTab""#))
        #expect(lines[2].contains(#""route":{"name":"ArtistTab""#))
        let manifest = try #require(try JSONSerialization.jsonObject(with: out.stdoutData) as? [String: Any])
        #expect(manifest["version"] as? Int == 9)
    }

    @Test func unreadableOrMalformedInputExitsTwo() throws {
        #expect(try CLI.run(["import", "echo", "/nonexistent.json"]).status == 2)
        let notEcho = try CLI.temporaryFile(#"{"routes": [{"name": 3}]}"#)
        let out = try CLI.run(["import", "echo", notEcho])
        #expect(out.status == 2 && out.stderr.contains("/routes/0"), "\(out.stderr)")
        #expect(try CLI.run(["import", "echo", try CLI.temporaryFile("[")]).status == 2)
    }
}
