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

    /// A plain path is read inside the URL's own bytes: its segments and tails see the
    /// path only, never the scheme, host or query around it.
    @Test func aPathReadInPlaceSeesOnlyItsSegments() {
        let url = Array("HTTPS://ARTSY.NET/Artist/Banksy/?Q=É".utf8)
        guard let path = URLScope.plainSegments(url, 17..<32) else {
            Issue.record("/Artist/Banksy/ is plain")
            return
        }
        #expect(path.strings == ["Artist", "Banksy"])
        #expect(path.tailString(0) == "Artist/Banksy" && path.tailString(1) == "Banksy" && path.tailString(2) == "")
        #expect(path == SegmentBuffer(["Artist", "Banksy"]))
        var extended = SegmentBuffer(capacity: 16, segments: 3)
        extended.appendSegment(1, of: path)
        extended.appendSegment(0, of: path)
        #expect(extended.strings == ["Banksy", "Artist"] && extended.tailString(0) == "Banksy/Artist")
        // Grown, it takes its segments into a buffer of its own: the URL's bytes after
        // the path are not taken for part of it.
        var grown = path
        grown.appendSegment("x")
        #expect(grown.strings == ["Artist", "Banksy", "x"] && grown.tailString(1) == "Banksy/x")
        #expect(path.strings == ["Artist", "Banksy"])
    }

    /// A plain path's bounds are held inline up to six segments ending within the first
    /// 255 bytes, and in an array past either limit: both read back the same segments,
    /// tails and counts, and a buffer held inline grows into an array of its own.
    @Test func inlineBoundsReadAsAnArrayOfThemDoes() {
        for (prefix, segments) in [(0, 1), (0, 6), (0, 7), (200, 6), (230, 6), (240, 2), (251, 1), (252, 1), (300, 3)] {
            let names = (0..<segments).map { "s\($0)" }
            let path = "/" + names.joined(separator: "/")
            let url = Array((String(repeating: "h", count: prefix) + path + "?q").utf8)
            let range = prefix..<(prefix + path.utf8.count)
            guard let plain = URLScope.plainSegments(url, range) else {
                Issue.record("\(path) is plain")
                continue
            }
            let label = "\(segments) segments ending at \(range.upperBound)"
            #expect(plain.boundsAreInline == (segments <= 6 && range.upperBound < 255), "\(label)")
            #expect(plain == SegmentBuffer(names) && plain.strings == names && plain.count == segments, "\(label)")
            for k in 0...segments {
                #expect(plain.tailString(k) == names[k...].joined(separator: "/"), "\(label), tail \(k)")
            }
            var grown = plain
            grown.appendSegment("x")
            #expect(!grown.boundsAreInline && grown.strings == names + ["x"], "\(label)")
            var shortened = plain
            shortened.removeLast()
            #expect(shortened.strings == Array(names.dropLast()) && shortened.tailString(0) == names.dropLast().joined(separator: "/"), "\(label)")
        }
    }

    /// A URL's parts are moved through a resolve, not copied, only while they fit in 56
    /// bytes: one more field made every resolve copy them (a retain and a release of each
    /// reference, ~300 instructions).
    @Test func aClassifiedURLStaysSmallEnoughToBeMoved() {
        #expect(MemoryLayout<SegmentBuffer>.size <= 24)
        #expect(MemoryLayout<InternalURL>.size <= 56)
    }

    @Test func matchingIsCaseInsensitiveOnNonASCIILiterals() {
        let literal = RouteCandidate(route: 0, patternIndex: 0, segments: [.literal(key: "künstler"), .param(name: "id", type: .slug)],
                                     priority: 0, name: "k")
        let trie = RouteTrie(candidates: [literal], caseSensitive: false)
        #expect(trie.match(["KÜNSTLER", "banksy"]) { _, failure in failure == nil } == 0)
        #expect(trie.match(["KÜNSTLER", "bank sy"]) { _, failure in failure == nil } == nil)
        let sensitive = RouteTrie(candidates: [literal], caseSensitive: true)
        #expect(sensitive.match(["KÜNSTLER", "banksy"]) { _, failure in failure == nil } == nil)
        // Each segment is folded on its own: ASCII ones as they are read, others as
        // String lowercases (İ lowers to two scalars, as the key was lowered).
        let mixed = RouteCandidate(route: 0, patternIndex: 0,
                                   segments: [.literal(key: "art"), .literal(key: "İstanbul".lowercased()), .param(name: "id", type: .string)],
                                   priority: 0, name: "m")
        let trie2 = RouteTrie(candidates: [mixed], caseSensitive: false)
        for path in [["ART", "İSTANBUL", "Ünï"], ["art", "İstanbul", "Ünï"], ["Art", "i̇stanbul", "Ünï"]] {
            var seen: String? = nil
            let buffer = SegmentBuffer(path)
            #expect(trie2.match(buffer) { _, _ in seen = buffer.string(2); return true } == 0, "\(path)")
            #expect(seen == "Ünï")
        }
        #expect(trie2.match(["art", "istanbul", "x"]) { _, _ in true } == nil)
    }

    /// Literals are looked up lowercased (each segment folded as it is read, no copy of
    /// the path) while params keep the case the URL gave.
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
