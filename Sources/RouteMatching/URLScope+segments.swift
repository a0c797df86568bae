extension URLScope {
    // MARK: - Path normalization: a path's bytes into segments (docs/manifest.md)

    /// RFC 3986 5.2.4 dot-segment removal on raw segments (`%2E` reads as `.`), empty
    /// segments dropped, each remaining segment decoded once. One pass: a segment is
    /// decoded as it is kept, and `..` removes the last kept one (an empty segment
    /// counts, as in the RFC, so it is kept until the end). Nil when a decoded segment
    /// is not UTF-8.
    static func normalizedSegments(_ input: [UInt8], _ path: Range<Int>) -> SegmentBuffer? {
        plainSegments(input, path) ?? decodedSegments(input, path)
    }

    /// ``normalizedSegments(_:_:)`` for any path: dot segments removed, empty ones
    /// dropped, `%XX` decoded.
    static func decodedSegments(_ input: [UInt8], _ path: Range<Int>) -> SegmentBuffer? {
        var slashes = 1
        for i in path where input[i] == UInt8(ascii: "/") { slashes += 1 }
        var segments = SegmentBuffer(capacity: path.count, segments: slashes)
        var empties = 0
        var start = path.lowerBound
        if start < path.upperBound, input[start] == UInt8(ascii: "/") { start += 1 }
        while start <= path.upperBound {
            var end = start
            while end < path.upperBound, input[end] != UInt8(ascii: "/") { end += 1 }
            switch dotSegmentKind(input, start..<end) {
            case 1: break
            case 2:
                if !segments.isEmpty {
                    if segments.range(segments.count - 1).isEmpty { empties -= 1 }
                    segments.removeLast()
                }
            default:
                segments.beginSegment()
                var nonASCII = false
                var i = start
                while i < end {
                    var b = input[i]
                    // The input was screened: every `%` starts a well-formed `%XX`.
                    if b == UInt8(ascii: "%"), i + 2 < end,
                       let hi = PercentDecoding.hexValue(input[i + 1]), let lo = PercentDecoding.hexValue(input[i + 2]) {
                        b = hi << 4 | lo
                        i += 3
                    } else {
                        i += 1
                    }
                    if b >= 0x80 { nonASCII = true }
                    segments.append(b)
                }
                if start == end { empties += 1 }
                if nonASCII, !UTF8Validation.isValid(segments.bytes[segments.range(segments.count - 1)]) { return nil }
            }
            start = end + 1
        }
        if empties > 0 { segments.removeEmpty() }
        return segments
    }

    /// The common path, with no `%`, no empty segment and no segment starting with `.`:
    /// nothing to decode or remove, so its bytes are the segments, copied at once. Nil
    /// for any other path (a trailing `/` is fine: its empty segment is dropped).
    static func plainSegments(_ input: [UInt8], _ path: Range<Int>) -> SegmentBuffer? {
        var start = path.lowerBound
        if start < path.upperBound, input[start] == UInt8(ascii: "/") { start += 1 }
        var end = path.upperBound
        if end > start, input[end - 1] == UInt8(ascii: "/") { end -= 1 }
        if start == end { return SegmentBuffer() }
        // Held inline when they fit, with no allocation (nearly every app path); else
        // read again into an array.
        if end < 255 {
            var inline = SegmentBuffer.InlineBounds()
            guard plainBounds(input, start..<end, into: &inline) else { return nil }
            if !inline.isFull { return SegmentBuffer(bytes: input, bounds: inline) }
        }
        // At most one segment per two bytes; paths rarely have more than 16.
        var bounds: [Int] = []
        bounds.reserveCapacity(min((end - start) / 2 + 2, 17))
        guard plainBounds(input, start..<end, into: &bounds) else { return nil }
        return SegmentBuffer(bytes: input, bounds: bounds)
    }

    /// The bounds of the plain path `input[path]` (its leading and trailing `/` trimmed)
    /// appended to `bounds`: each segment's start, then one past the last one's end.
    /// False when the path is not plain.
    @inline(__always)
    private static func plainBounds(_ input: [UInt8], _ path: Range<Int>, into bounds: inout some SegmentBoundsSink) -> Bool {
        // The path alone, indexed from 0: the loop's bound is the span's, so a byte is
        // read without a bounds check (offsets are added back when stored).
        input.withSpan { plainBounds($0.extracting(path), from: path.lowerBound, into: &bounds) }
    }

    @inline(__always)
    private static func plainBounds(_ bytes: Span<UInt8>, from start: Int, into bounds: inout some SegmentBoundsSink) -> Bool {
        let end = start + bytes.count
        var segmentStart = 0
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            // Letters and digits lie above `%`, `.` and `/`: one comparison passes them.
            if b > UInt8(ascii: "/") {
                i &+= 1
                continue
            }
            if b == UInt8(ascii: "%") { return false }
            if b == UInt8(ascii: "/") {
                if i == segmentStart { return false }
                bounds.append(start + segmentStart)
                segmentStart = i + 1
            } else if b == UInt8(ascii: "."), i == segmentStart {
                return false
            }
            i &+= 1
        }
        segmentStart += start
        // The last segment is empty only when the path ends in `//`.
        if segmentStart == end { return false }
        bounds.append(segmentStart)
        bounds.append(end + 1)
        return true
    }

    /// 1 for `.`, 2 for `..` (with `%2E` read as `.`), 0 otherwise.
    static func dotSegmentKind(_ input: [UInt8], _ range: Range<Int>) -> Int {
        var dots = 0
        var i = range.lowerBound
        while i < range.upperBound {
            if input[i] == UInt8(ascii: ".") {
                i += 1
            } else if input[i] == UInt8(ascii: "%"), i + 2 < range.upperBound,
                      input[i + 1] == UInt8(ascii: "2"), input[i + 2] | 0x20 == UInt8(ascii: "e") {
                i += 3
            } else {
                return 0
            }
            dots += 1
            if dots > 2 { return 0 }
        }
        return dots
    }
}

/// Where ``URLScope/plainSegments(_:_:)`` puts a path's bounds: inline, or an array.
protocol SegmentBoundsSink {
    mutating func append(_ bound: Int)
}

extension SegmentBuffer.InlineBounds: SegmentBoundsSink {}
extension Array: SegmentBoundsSink where Element == Int {}
