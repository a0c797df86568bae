import Foundation
import Testing
import TestSupport

/// A port of Eigen's own route table (`Fixtures/eigen-routes.json`, 137 routes from its
/// `routes.tsx`), using what the contract offers: optional groups, aliases, `inject`
/// from params the pattern does not bind. It must load with warnings only and resolve
/// as Eigen did.
struct RealTableTests {
    static let table = CLI.packageRoot.appendingPathComponent("Tests/CLITests/Fixtures/eigen-routes.json").path

    @Test func checkAcceptsItWithWarningsOnly() throws {
        let check = try CLI.run(["check", Self.table])
        #expect(check.status == 0, "\(check.stdout)")
        #expect(check.stdout.contains("OK: version 157, 137 routes"))
        let warnings = check.stdout.split(separator: "\n").dropFirst()
        #expect(warnings.count == 2 && warnings.allSatisfy { $0.contains("warning[undeclared-param]") }, "\(check.stdout)")
    }

    @Test(arguments: [
        // Declared params come in key order (the canonical manifest's), whatever the file's.
        ("artsy://partner/gagosian/artists?hashFragment=top", #""params":{"partnerID":"gagosian","hashFragment":"top","initialTab":"Artists"}"#),
        ("https://artsy.net/news/article/a-1/amp", #""route":{"name":"article-articleid","pattern":"/(news/)article/:articleID(/amp)"}"#),
        ("https://artsy.net/gene/surrealism/price", #""params":{"geneID":"surrealism","sort":"price"}"#),
        ("https://artsy.net/gene/surrealism/artworks/price", #""params":{"geneID":"surrealism","sort":"price"}"#),
        ("/user/conversations/12", #""route":{"name":"conversation-conversationid","pattern":"/user/conversations/:conversationID"}"#),
        ("/settings/saves", #""destination":"SavedArtworks""#),
        ("/artist/banksy/auction-results?sort=DATE_DESC", #""params":{"artistID":"banksy","initialTab":"Insights","sort":"DATE_DESC"}"#),
        ("/spruth-magers/artist/astrid-klein", #""destination":"Artist""#),
        ("/some-vanity-slug", #""destination":"VanityURLEntity""#),
        ("/a/b/c/d", #""destination":"ReactWebView""#),
        ("https://live.artsy.net/shows/x", #""params":{"*":"shows/x","slug":"shows/x"}"#),
    ])
    func resolvesAsEigenDid(_ url: String, _ fragment: String) throws {
        let out = try CLI.run(["resolve", "--config", Self.table, url])
        #expect(out.status == 0)
        #expect(out.stdout.contains(fragment), "\(url): \(out.stdout)")
    }
}
