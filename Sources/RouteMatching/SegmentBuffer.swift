/// Decoded path segments in one byte buffer, joined with `/`: segment `k` is
/// `bytes[range(k)]`, and the segments from `k` on, as a wildcard takes them, are the
/// contiguous `bytes[tail(k)]`. A `/` decoded from `%2F` stays inside its segment: the
/// ranges, not the bytes, say where segments end.
///
/// A path with nothing to decode is read in place: `bytes` is then the URL's own array
/// and the ranges lie inside it, so such a path costs one allocation (its bounds);
/// a path that was decoded has a buffer of its own. Matching reads segments as bytes
/// from here; Strings are made only for the values a result returns.
///
/// ```swift
/// let path = SegmentBuffer(["artist", "a/b"])
/// path.string(1)    // "a/b"
/// path.tailString(0) // "artist/a/b"
/// ```
public struct SegmentBuffer: Sendable, Equatable {
    /// The segments joined with `/`, possibly inside a larger array (the URL's): read
    /// them through ``range(_:)`` and ``tail(_:)``, never whole.
    public private(set) var bytes: [UInt8] = []
    /// Where each segment starts in `bytes`, then one past the end of the last one (where
    /// a next segment would start after its `/`): segment `k` is `bounds[k]..<bounds[k + 1] - 1`.
    /// Empty when there are no segments. (Two references, not a third field for the end:
    /// a larger buffer made the URL that holds it be copied where it is now moved.)
    private var bounds: [Int] = []

    public init() {}

    public init(_ segments: [String]) {
        bounds.reserveCapacity(segments.count + 1)
        for segment in segments { appendSegment(segment) }
    }

    /// Segments already in `bytes`, at `bounds` (their starts, then one past the last
    /// one's end).
    init(bytes: [UInt8], bounds: [Int]) {
        self.bytes = bytes
        self.bounds = bounds
    }

    public init(capacity: Int, segments: Int) {
        bytes.reserveCapacity(capacity)
        bounds.reserveCapacity(segments + 1)
    }

    /// The same segments: equal whether each is read in place or from a buffer of its own.
    public static func == (lhs: SegmentBuffer, rhs: SegmentBuffer) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for k in 0..<lhs.count where !lhs.bytes[lhs.range(k)].elementsEqual(rhs.bytes[rhs.range(k)]) { return false }
        return true
    }

    public var count: Int { Swift.max(bounds.count - 1, 0) }
    public var isEmpty: Bool { bounds.isEmpty }

    /// Where the last segment ends.
    @inline(__always)
    private var end: Int { (bounds.last ?? 1) - 1 }

    @inline(__always)
    public func range(_ k: Int) -> Range<Int> { bounds[k]..<bounds[k + 1] - 1 }

    /// Segments `k...` with the `/` between them.
    @inline(__always)
    public func tail(_ k: Int) -> Range<Int> { (k < count ? bounds[k] : end)..<end }

    /// Segment `k` as text (the buffer holds UTF-8 only: see ``URLScope``).
    public func string(_ k: Int) -> String { String(decoding: bytes[range(k)], as: UTF8.self) }

    /// Segments `k...` joined with `/`, as a wildcard binds them.
    public func tailString(_ k: Int) -> String { String(decoding: bytes[tail(k)], as: UTF8.self) }

    public var strings: [String] { (0..<count).map(string) }

    /// Starts a new, empty segment; append its bytes next. A buffer read in place
    /// takes its segments into a buffer of its own first.
    @inline(__always)
    mutating func beginSegment() {
        if bounds.isEmpty {
            if !bytes.isEmpty { bytes = [] }
            bounds.append(0)
        } else {
            if bounds[0] != 0 || end != bytes.count { ownBytes() }
            bytes.append(UInt8(ascii: "/"))
        }
        bounds.append(bytes.count + 1)
    }

    /// The segments moved to the start of a buffer that holds nothing else.
    private mutating func ownBytes() {
        let first = bounds[0]
        bytes = Array(bytes[first..<end])
        bounds = bounds.map { $0 - first }
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        bytes.append(byte)
        bounds[bounds.count - 1] += 1
    }

    @inline(__always)
    private mutating func append(contentsOf segment: some Collection<UInt8>) {
        bytes.append(contentsOf: segment)
        bounds[bounds.count - 1] = bytes.count + 1
    }

    /// Appends `text` as a new segment.
    public mutating func appendSegment(_ text: String) {
        beginSegment()
        append(contentsOf: text.utf8)
    }

    /// Appends segment `k` of `other` as a new segment.
    public mutating func appendSegment(_ k: Int, of other: SegmentBuffer) {
        beginSegment()
        append(contentsOf: other.bytes[other.range(k)])
    }

    /// Removes the last segment (for `..`): its start, one past the `/` before it, is
    /// where the segment before it now ends.
    mutating func removeLast() {
        guard !bounds.isEmpty else { return }
        bounds.removeLast()
        let start = bounds[bounds.count - 1]
        if bounds.count == 1 {
            bounds.removeAll(keepingCapacity: true)
            bytes.removeSubrange(start...)
        } else {
            bytes.removeSubrange((start - 1)...)
        }
    }

    /// Drops empty segments.
    mutating func removeEmpty() {
        var kept = SegmentBuffer(capacity: end, segments: count)
        for k in 0..<count where !range(k).isEmpty { kept.appendSegment(k, of: self) }
        self = kept
    }
}
