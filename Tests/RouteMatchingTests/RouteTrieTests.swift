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

    /// A candidate is offered with the failure a full check of its typed params gives,
    /// though the search skips depths its pruning already checked (a typed child of one
    /// type): with pruning and without, on shared and unshared typed nodes, at every
    /// depth of random paths.
    @Test func skippedTypeChecksGiveTheFailureAFullCheckGives() throws {
        let routes = [("ii", "/x/:a/:b"), ("sz", "/x/:c/z"), ("iw", "/x/:d/*rest"), ("u", "/y/:e/:f(/:g)"), ("s", "/y/:h/lit"),
                      ("str", "/x/:i/:j")]
        let types: [String: ParamType] = ["ii.a": .int, "ii.b": .int, "sz.c": .slug, "iw.d": .int, "iw.rest": .int,
                                          "u.e": .uuid, "u.f": .int, "u.g": .slug, "s.h": .uuid]
        let t = try trie(routes, types: types)
        let values = ["x", "y", "12", "abc", "a-b", "z", "lit", "Ab", "123e4567-e89b-12d3-a456-426614174000", "-1"]
        var seed: UInt64 = 0x7E57
        var offered = 0, failed = 0
        for _ in 0..<3_000 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            let rest = (0..<(1 + Int(seed >> 62))).map { values[Int((seed >> UInt64(8 + $0 * 8)) & 0xFF) % values.count] }
            let path = [seed & 1 == 0 ? "x" : "y"] + rest
            let buffer = SegmentBuffer(path)
            for pruning in [true, false] {
                _ = t.match(buffer, pruning: pruning) { c, failure in
                    let full = t.typeFailure(t.candidates[c], buffer)
                    #expect(failure?.depth == full?.depth && failure == full, "\(path) \(t.candidates[c].name) pruning \(pruning)")
                    offered += 1
                    if full != nil { failed += 1 }
                    return false
                }
            }
        }
        #expect(offered > 2_000 && failed > 200, "\(offered) offered, \(failed) failed")
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

    /// The word-at-a-time fold lowers what the byte-wise one lowers, every byte in every
    /// position of a word, and a key hashes and compares the same folded or typed lowercase
    /// at every length around a word's.
    @Test func wordsFoldAndHashAsBytesDo() throws {
        for b in UInt8.min...UInt8.max {
            for k in 0..<8 {
                let filler: UInt64 = 0x5A41_7A61_805B_4060   // Z A z a 0x80 [ @ `
                let w = filler & ~(0xFF << UInt64(8 * k)) | UInt64(b) << UInt64(8 * k)
                var expected: UInt64 = 0
                for j in 0..<8 { expected |= UInt64(ASCII.lowercased(UInt8(truncatingIfNeeded: w >> UInt64(8 * j)))) << UInt64(8 * j) }
                #expect(ASCII.lowercased(word: w) == expected, "byte \(b) at \(k)")
            }
        }
        for length in 1...19 {
            let key = String((0..<length).map { Character(UnicodeScalar(UInt8(ascii: "a") + UInt8($0 % 26))) })
            let upper = ContiguousArray(key.uppercased().utf8), lower = ContiguousArray(key.utf8)
            #expect(RouteTrie.hash(upper, 0..<upper.count, parent: 3, fold: true) == RouteTrie.hash(lower, 0..<lower.count, parent: 3), "\(length)")
            #expect(RouteTrie.hash(lower, 0..<lower.count, parent: 3) != RouteTrie.hash(lower, 0..<lower.count, parent: 4))
            let t = try trie([("k", "/" + key + "/end")])
            #expect(winner(t, [key.uppercased(), "END"]) == "k")
            #expect(winner(t, [String(key.dropLast()) + "_", "end"]) == nil)
        }
    }
}
