import Switchboard
import SwitchboardTooling
import Testing
import TestSupport

/// docs/pipelines.md: what `cases` writes, `validate` reads back. Every URL and destination, any
/// Unicode and every character the format gives a meaning to, round-trips through
/// `ValidationCase.line` and `ValidationCase.parse`.
struct CasesQuotingTests {
    /// Pieces with a meaning in the format, and Unicode that is easy to get wrong.
    static let pieces = [
        "a", "Z", "9", "/", "-", ">", "->", " ", "  ", "\t", "#", " #", "[", "]", " [platform=ios]", "\"", "\\", "\\\"", "'",
        "fallback", "external", "rejected", "=", "?", "&", "%20", "%", "é", "e\u{301}", "\u{301}", "\u{A0}", "\u{2028}", "\u{85}",
        "\u{1}", "\u{7F}", "\r", "\n", "🎨", "👩‍👩‍👧", "漢字", "\u{FEFF}", "\u{200B}", "\u{10FFFF}", "Featured Fairs", "X -> Y",
    ]

    static func text(_ rng: inout SplitMix, allowEmpty: Bool) -> String {
        let count = Int.random(in: (allowEmpty ? 0 : 1)...6, using: &rng)
        return (0..<count).map { _ in pieces.randomElement(using: &rng)! }.joined()
    }

    @Test(arguments: [1, 2, 3, 4])
    func everyURLAndDestinationReadsBackAsWritten(seed: UInt64) throws {
        var rng = SplitMix(seed: seed)
        let contexts = [ResolveContext.empty, ResolveContext(platform: "ios", appVersion: SemanticVersion("7.1.0")!),
                        ResolveContext(idiom: "tablet")]
        for _ in 0..<2_000 {
            let url = Self.text(&rng, allowEmpty: false)
            let destination = Self.text(&rng, allowEmpty: true)
            let context = contexts.randomElement(using: &rng)!
            for expectation in [ValidationCase.Expectation.destination(destination), .matched, .fallback, .rejected] {
                let line = ValidationCase.line(url: url, context: context, expectation: expectation)
                // One line, whatever the text holds.
                #expect(!line.unicodeScalars.contains { $0 == "\n" || $0 == "\r" }, "\(line.debugDescription)")
                let parsed = try ValidationCase.parse(line + "  # a comment after it\n")
                #expect(parsed.count == 1, "\(line.debugDescription)")
                guard let c = parsed.first else { continue }
                #expect(c.url == url && c.expectation == expectation && (c.context ?? .empty) == context,
                        "\(line.debugDescription) read as \(c.url.debugDescription) \(c.expectation)")
            }
        }
    }

    @Test func plainWordsStayBareAndOthersAreJSONStrings() throws {
        #expect(ValidationCase.line(url: "/featured-fairs", expectation: .destination("Featured Fairs")) == #"/featured-fairs -> "Featured Fairs""#)
        #expect(ValidationCase.line(url: "/a b", expectation: .rejected) == #""/a b" -> rejected"#)
        #expect(ValidationCase.line(url: "/x", expectation: .destination("fallback")) == #"/x -> "fallback""#)
        #expect(ValidationCase.line(url: "/x#top", expectation: .destination("Artist")) == "/x#top -> Artist")
        #expect(ValidationCase.line(url: "#top", expectation: .matched) == ##""#top""##)
        // What people wrote before still reads as it did.
        let old = try ValidationCase.parse("/a->A\n/b -> fallback # note\n/c [platform=ios] -> B\nhttps://[::1]/d\n/e#f -> C\r\n/g -> D\r\n")
        #expect(old.map(\.url) == ["/a", "/b", "/c", "https://[::1]/d", "/e#f", "/g"])
        #expect(old.map(\.expectation) == [.destination("A"), .fallback, .destination("B"), .matched, .destination("C"), .destination("D")])
        #expect(old.map(\.text) == ["/a->A", "/b -> fallback", "/c [platform=ios] -> B", "https://[::1]/d", "/e#f -> C", "/g -> D"])
        // A quote that does not open a complete JSON string is part of a bare word, as before.
        let quotes = try ValidationCase.parse(#"/a -> "X"# + "\n" + #""/b -> Y"# + "\n" + #"/c -> "Z"x"# + "\n")
        #expect(quotes.map(\.url) == ["/a", #""/b"#, "/c"])
        #expect(quotes.map(\.expectation) == [.destination(#""X"#), .destination("Y"), .destination(#""Z"x"#)])
    }

    @Test(arguments: [
        ("/a -> Featured Fairs", "expected one destination after '->', got 'Featured Fairs'"),
        ("/a -> A -> B", "more than one '->'"),
        (#"/a -> "Open Fairs"#, "write a destination that is not one word as a JSON string"),
        ("/a b -> A", "expected 'URL' or 'URL -> Destination"),
        ("/a ->", "expected a destination after '->'"),
    ])
    func malformedLinesNameTheirProblem(line: String, message: String) {
        #expect(throws: ValidationCase.SyntaxError.self) { try ValidationCase.parse(line) }
        do {
            _ = try ValidationCase.parse(line)
        } catch {
            #expect(error.line == 1 && error.message.contains(message), "\(error.message)")
        }
    }
}
