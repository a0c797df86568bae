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

    @Test func lowercasesLikeString() {
        #expect(SegmentBuffer(["artist", "A-b"]).isASCII)
        #expect(!SegmentBuffer(["artist", "é"]).isASCII)
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
}
