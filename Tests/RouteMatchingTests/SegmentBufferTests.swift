import Testing
@testable import RouteMatching

@Suite struct SegmentBufferTests {
    @Test func segmentsAndTailsReadBackAsGiven() {
        let path = SegmentBuffer(["artist", "a/b", "", "é"])
        #expect(path.count == 4)
        #expect(path.strings == ["artist", "a/b", "", "é"])
        #expect(path.tailString(1) == "a/b//é")
        #expect(path.tailString(4) == "")
        #expect(SegmentBuffer([]).tailString(0) == "")
        #expect(SegmentBuffer(["x"]) != SegmentBuffer(["", "x"]))
    }

    @Test func dotSegmentsAndEmptySegmentsAreRemovedOnBytes() {
        let scope = URLScope(hosts: ["artsy.net"], schemes: [])
        for (url, expected) in [("/a/b/../c", ["a", "c"]), ("/a%2Fb/..", []), ("/a//b/", ["a", "b"]),
                                ("/../a", ["a"]), ("/a/%2e%2E/b", ["b"]), ("/a/./b/.", ["a", "b"]), ("/x//..//y", ["x", "y"])] {
            guard case .internal(let u) = scope.classify(url) else {
                Issue.record("\(url) not internal")
                continue
            }
            #expect(u.segments == expected, "\(url)")
            #expect(u.segmentBuffer == SegmentBuffer(expected), "\(url)")
        }
    }

    /// The plain-path shortcut gives what the full decoder gives, whenever it applies.
    @Test func plainPathsSplitAsTheDecoderDoes() {
        let pieces = ["a", "Bc", "é", "/", "/", "%2F", "%41", ".", "..", "%2e", "x.y", "-"]
        var seed: UInt64 = 0x5EED
        var plain = 0
        for _ in 0..<5_000 {
            var path = ""
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            for k in 0..<Int(seed >> 60) { path += pieces[Int((seed >> UInt64(k * 4)) & 0xF) % pieces.count] }
            let bytes = Array(path.utf8)
            guard let shortcut = URLScope.plainSegments(bytes, 0..<bytes.count) else { continue }
            plain += 1
            #expect(shortcut == URLScope.decodedSegments(bytes, 0..<bytes.count), "\(path)")
        }
        #expect(plain > 1_000)
        #expect(URLScope.plainSegments(Array("/a/.b".utf8), 0..<5) == nil)
        #expect(URLScope.plainSegments(Array("/a//".utf8), 0..<4) == nil)
        #expect(URLScope.plainSegments(Array("/a/b/".utf8), 0..<5)?.strings == ["a", "b"])
        #expect(URLScope.plainSegments(Array("/".utf8), 0..<1)?.count == 0)
    }

    @Test func lowercasesLikeString() {
        #expect(SegmentBuffer(["artist", "a-b"]).asciiAndCapitals == (true, false))
        #expect(SegmentBuffer(["artist", "A-b"]).asciiAndCapitals == (true, true))
        #expect(SegmentBuffer(["artist", "é"]).asciiAndCapitals.isASCII == false)
        #expect(SegmentBuffer(["ARTIST", "a@Z[", "a%2FB"]).asciiLowercased() == SegmentBuffer(["artist", "a@z[", "a%2fb"]))
        #expect(SegmentBuffer(["ARTIST", "Ünïcode", "İ"]).lowercased().strings == ["artist", "ünïcode", "İ".lowercased()])
    }

    @Test func matchingIsCaseInsensitiveOnNonASCIILiterals() {
        let literal = RouteCandidate(route: 0, patternIndex: 0, segments: [.literal(key: "künstler"), .param(name: "id", type: .slug)],
                                     priority: 0, name: "k")
        let trie = RouteTrie(candidates: [literal], caseSensitive: false)
        #expect(trie.match(["KÜNSTLER", "banksy"]) { _, failure in failure == nil } == 0)
        #expect(trie.match(["KÜNSTLER", "bank sy"]) { _, failure in failure == nil } == nil)
        let sensitive = RouteTrie(candidates: [literal], caseSensitive: true)
        #expect(sensitive.match(["KÜNSTLER", "banksy"]) { _, failure in failure == nil } == nil)
    }

    /// Literals are looked up lowercased (a copy of the path when it has capitals) while
    /// params keep the case the URL gave.
    @Test func asciiCapitalsMatchLiteralsAndParamsKeepTheirCase() {
        let candidate = RouteCandidate(route: 0, patternIndex: 0, segments: [.literal(key: "artist"), .param(name: "id", type: .string)],
                                       priority: 0, name: "a")
        let trie = RouteTrie(candidates: [candidate], caseSensitive: false)
        for path in [["artist", "Banksy"], ["ARTIST", "Banksy"], ["ArTiSt", "Banksy"]] {
            var seen: String? = nil
            let path = SegmentBuffer(path)
            #expect(trie.match(path) { _, _ in seen = path.string(1); return true } == 0)
            #expect(seen == "Banksy")
        }
        #expect(trie.match(["artists", "x"]) { _, _ in true } == nil)
        let sensitive = RouteTrie(candidates: [candidate], caseSensitive: true)
        #expect(sensitive.match(["Artist", "x"]) { _, _ in true } == nil)
        #expect(sensitive.match(["artist", "x"]) { _, _ in true } == 0)
    }
}
