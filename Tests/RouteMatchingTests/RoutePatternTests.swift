import Testing
@testable import RouteMatching

struct RoutePatternTests {
    @Test func expandsOptionalGroupsLongestFirst() throws {
        let p = try RoutePattern(parsing: "/artist/:id(/:tab)")
        #expect(p.expansions == [[.literal("artist"), .param("id"), .param("tab")], [.literal("artist"), .param("id")]])
        let run = try RoutePattern(parsing: "/a(/b)(/c)")
        #expect(run.expansions.map { $0.map(\.description).joined(separator: "/") } == ["a/b/c", "a/b", "a"])
        let split = try RoutePattern(parsing: "/a(/:b)/c(/:d)")
        #expect(split.expansions.count == 4)
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
        ("/a(b)", .optionalGroupWithoutSlash),
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
