import Testing
@testable import RouteMatching

struct RouteTrieTests {
    /// Builds a trie from (name, pattern, types) in the given order.
    func trie(_ routes: [(String, String)], types: [String: ParamType] = [:], priorities: [String: Int] = [:]) throws -> RouteTrie {
        var candidates: [RouteCandidate] = []
        for (i, (name, text)) in routes.enumerated() {
            for expansion in try RoutePattern(parsing: text).expansions {
                let segments = expansion.map { segment -> SegmentMatcher in
                    switch segment {
                    case .literal(let t): return .literal(key: t.lowercased())
                    case .param(let n): return .param(name: n, type: types["\(name).\(n)"] ?? .string)
                    case .wildcard(let n): return .wildcard(name: n, type: types["\(name).\(n)"] ?? .string)
                    }
                }
                candidates.append(RouteCandidate(route: i, patternIndex: 0, segments: segments, priority: priorities[name] ?? 0, name: name))
            }
        }
        return RouteTrie(candidates: candidates, caseSensitive: false)
    }

    func winner(_ trie: RouteTrie, _ path: [String]) -> String? {
        trie.match(path) { _, failure in failure == nil }.map { trie.candidates[$0].name }
    }

    @Test func backtracksToAParamRouteAfterALiteralDeadEnd() throws {
        let t = try trie([("abc", "/a/b/c"), ("axd", "/a/:x/d")])
        #expect(winner(t, ["a", "b", "d"]) == "axd")
        #expect(winner(t, ["a", "b", "c"]) == "abc")
    }

    @Test func precedenceIsIndependentOfFileOrder() throws {
        let routes = [("literal", "/artist/new"), ("typed", "/artist/:id"), ("string", "/artist/:name"), ("wild", "/artist/*")]
        let types: [String: ParamType] = ["typed.id": .int]
        for order in [routes, routes.reversed(), [routes[2], routes[0], routes[3], routes[1]]] {
            let t = try trie(order, types: types)
            #expect(winner(t, ["artist", "new"]) == "literal")
            #expect(winner(t, ["artist", "42"]) == "typed")
            #expect(winner(t, ["artist", "banksy"]) == "string")
            #expect(winner(t, ["artist", "a", "b"]) == "wild")
            #expect(winner(t, ["artist"]) == "wild")
        }
    }

    @Test func exactEndBeatsAWildcardMatchingNothing() throws {
        let t = try trie([("wild", "/help/*"), ("exact", "/help")])
        #expect(winner(t, ["help"]) == "exact")
        #expect(winner(t, ["help", "x"]) == "wild")
    }

    @Test func typedParamFailureFallsThroughToLessSpecificRoutes() throws {
        let t = try trie([("int", "/c/:id"), ("str", "/c/:slug")], types: ["int.id": .int])
        #expect(winner(t, ["c", "12"]) == "int")
        #expect(winner(t, ["c", "abc"]) == "str")
    }

    @Test func priorityOrdersRoutesOfTheSameShape() throws {
        let t = try trie([("low", "/s/:a"), ("high", "/s/:b")], priorities: ["high": 5])
        #expect(winner(t, ["s", "x"]) == "high")
    }

    @Test func literalsCompareCaseInsensitivelyByDefault() throws {
        let t = try trie([("about", "/About")])
        #expect(winner(t, ["ABOUT"]) == "about")
        #expect(winner(t, ["abouT"]) == "about")
    }

    @Test func eachOptionalExpansionIsItsOwnCandidate() throws {
        let t = try trie([("artist", "/artist/:id(/:tab)")], types: ["artist.tab": .enumeration(["works"])])
        #expect(winner(t, ["artist", "x", "works"]) == "artist")
        #expect(winner(t, ["artist", "x"]) == "artist")
        #expect(winner(t, ["artist", "x", "other"]) == nil)
    }
}
