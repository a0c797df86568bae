import Testing
import TestSupport
@testable import RouteMatching

struct RoutePatternTests {
    static func texts(_ pattern: String) throws -> [String] {
        try RoutePattern(parsing: pattern).expansions.map(RoutePattern.text(of:))
    }

    @Test func expandsEveryOrderedSubsetOfOptionalGroups() throws {
        let p = try RoutePattern(parsing: "/artist/:id(/:tab)")
        #expect(p.expansions == [[.literal("artist"), .param("id"), .param("tab")], [.literal("artist"), .param("id")]])
        // The issue's example: the second group without the first is an expansion too.
        #expect(try Self.texts("/path/:thing(/new)(/anotherpath/:other)")
                == ["/path/:thing/new/anotherpath/:other", "/path/:thing/new", "/path/:thing/anotherpath/:other", "/path/:thing"])
        #expect(try Self.texts("/a(/b)(/c)") == ["/a/b/c", "/a/b", "/a/c", "/a"])
        #expect(try Self.texts("/a(/:b)/c(/:d)") == ["/a/:b/c/:d", "/a/:b/c", "/a/c/:d", "/a/c"])
    }

    @Test func readsGroupsWrittenRightAfterASlash() throws {
        // JLRoutes' testOptionalRoutesAtStart and testOptionalRoutesInterleaved.
        #expect(try Self.texts("/(rest/)(app/):object/:id")
                == ["/rest/app/:object/:id", "/rest/:object/:id", "/app/:object/:id", "/:object/:id"])
        #expect(try Self.texts("/(rest/):object/(app/):id")
                == ["/rest/:object/app/:id", "/rest/:object/:id", "/:object/app/:id", "/:object/:id"])
        #expect(try Self.texts("/a/(b/c/)") == ["/a/b/c", "/a"])
        #expect(try Self.texts("/a(/b)/(c/)d") == ["/a/b/c/d", "/a/b/d", "/a/c/d", "/a/d"])
    }

    @Test func groupsKeptByEachExpansion() throws {
        let p = try RoutePattern(parsing: "/x(/:a)(/:b)(/:c)")
        #expect(p.keptGroups == [[0, 1, 2], [0, 1], [0, 2], [0], [1, 2], [1], [2], []])
        #expect(p.expansions.count == 8 && p.optionalGroupCount == 3)
        #expect(p.requiredParamNames == [] && Set(p.paramNames) == ["a", "b", "c"])
        #expect(try RoutePattern(parsing: "/x/:id(/:tab)").requiredParamNames == ["id"])
    }

    /// Against a brute-force reference: for generated patterns of up to 4 groups of both
    /// forms, typed and plain params, the expansions are exactly the texts obtained by
    /// keeping each subset of the groups (parentheses removed) and deleting the others,
    /// ordered by the kept group indices compared as lists, a list before its prefixes.
    @Test func expansionMatchesTheBruteForceReference() throws {
        var rng = SplitMix(seed: 15)
        let pieces = ["a", ":p", "b", "*w", "c", ":q"]
        func keptBefore(_ x: [Int], _ y: [Int]) -> Bool {
            for (p, q) in zip(x, y) where p != q { return p < q }
            return x.count > y.count
        }
        for _ in 0..<500 {
            var items: [(text: String, group: Bool)] = []
            var afterSlash = true
            var names = 0
            let count = 1 + Int(rng.next() % 6)
            for k in 0..<count {
                var segments: [String] = []
                for _ in 0...(Int(rng.next() % 2)) {
                    var p = pieces[Int(rng.next() % UInt64(pieces.count))]
                    if p.hasPrefix("*") && k < count - 1 { p = "d" }
                    if p.hasPrefix(":") || p.hasPrefix("*") { names += 1; p += String(names) }
                    if segments.last?.hasPrefix("*") == true { break }
                    segments.append(p)
                }
                if segments.contains(where: { $0.hasPrefix("*") }) && k < count - 1 { segments = ["e"] }
                let isGroup = items.filter(\.group).count < 4 && rng.next() % 2 == 0
                if isGroup {
                    items.append(afterSlash ? (segments.joined(separator: "/") + "/", true) : ("/" + segments.joined(separator: "/"), true))
                } else {
                    items.append(((afterSlash ? "" : "/") + segments.joined(separator: "/"), false))
                    afterSlash = false
                }
            }
            let text = "/" + items.map { $0.group ? "(" + $0.text + ")" : $0.text }.joined()
            let groups = items.indices.filter { items[$0].group }
            // Every subset by bitmask, then the documented order.
            let subsets = (0..<(1 << groups.count)).map { mask in (0..<groups.count).filter { mask & (1 << $0) != 0 } }
                .sorted(by: keptBefore)
            let reference = subsets.map { kept -> String in
                var flat = "/"
                for (i, item) in items.enumerated() {
                    if let g = groups.firstIndex(of: i), !kept.contains(g) { continue }
                    flat += item.text
                }
                while flat.count > 1 && flat.hasSuffix("/") { flat.removeLast() }
                return flat.replacingOccurrences(of: "//", with: "/")
            }
            guard let parsed = try? RoutePattern(parsing: text) else {
                Issue.record("\(text) did not parse")
                continue
            }
            #expect(parsed.expansions.map(RoutePattern.text(of:)) == reference, "\(text)")
            #expect(parsed.expansions.count == 1 << groups.count && parsed.optionalGroupCount == groups.count, "\(text)")
        }
    }

    @Test func parsesSegmentsAndWildcards() throws {
        #expect(try RoutePattern(parsing: "/").expansions == [[]])
        #expect(try RoutePattern(parsing: "/a/").expansions == [[.literal("a")]])
        #expect(try RoutePattern(parsing: "/files/*").expansions == [[.literal("files"), .wildcard("*")]])
        #expect(try RoutePattern(parsing: "/files/*rest").expansions == [[.literal("files"), .wildcard("rest")]])
        #expect(try RoutePattern(parsing: "/%61bout").expansions == [[.literal("about")]])
        #expect(try RoutePattern(parsing: "/a(/*rest)").expansions.count == 2)
    }

    @Test(arguments: [
        ("", PatternError.empty),
        ("artwork", .missingLeadingSlash),
        ("/a//b", .emptySegment),
        ("/a((/b))", .nestedOptional),
        ("/a(/b(/c))", .nestedOptional),
        ("/a(/b", .unbalancedParenthesis),
        ("/a/b)", .unbalancedParenthesis),
        ("/a()", .emptyOptionalGroup),
        ("/a(b)", .optionalGroupForm),
        ("/(b)/c", .optionalGroupForm),
        ("/(/b)", .emptySegment),
        ("/a(/b/)", .optionalGroupForm),
        ("/(b/", .unbalancedParenthesis),
        ("/a(/b)c", .textAfterGroup),
        ("/*/a", .wildcardNotLast),
        ("/a(/*r)(/b)", .wildcardNotLast),
        ("/:", .invalidParamName("")),
        ("/:1a", .invalidParamName("1a")),
        ("/:id/:id", .duplicateParam("id")),
        ("/a?b", .invalidCharacter("'?'")),
        ("/a b", .invalidCharacter("U+20")),
        ("/a\tb", .invalidCharacter("U+9")),
        ("/a\u{7F}", .invalidCharacter("'\u{7F}'")),
        ("/caf\u{E9}/\u{85}", .invalidCharacter("'\u{85}'")),
        ("/\u{9F}/ ", .invalidCharacter("'\u{9F}'")),
        // Two problems: the first in this order is reported, whatever their places.
        ("/:a/:a/*w/x", .wildcardNotLast),
        ("/*w/x//", .emptySegment),
        ("/a%zz", .invalidPercentEncoding),
        ("/a(/b)(/c)(/d)(/e)(/f)(/g)(/h)(/i)(/j)", .tooManyOptionalGroups(9)),
    ] as [(String, PatternError)])
    func rejectsMalformedPatterns(_ text: String, _ error: PatternError) {
        #expect(throws: error) { try RoutePattern(parsing: text) }
    }
}
