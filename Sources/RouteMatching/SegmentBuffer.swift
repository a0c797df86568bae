/// Decoded path segments in one byte buffer, joined with `/`: segment `k` is
/// `bytes[range(k)]`, and the segments from `k` on, as a wildcard takes them, are the
/// contiguous `bytes[tail(k)]`. A `/` decoded from `%2F` stays inside its segment: the
/// ranges, not the bytes, say where segments end.
///
/// A path with nothing to decode is read in place: `bytes` is then the URL's own array
/// and the ranges lie inside it. Its bounds are held inline when they fit (up to six
/// segments ending within the first 255 bytes: nearly every app URL), so such a path
/// costs no allocation; a path that was decoded has a buffer of its own. Matching reads
/// segments as bytes from here; Strings are made only for the values a result returns.
///
/// ```swift
/// let path = SegmentBuffer(["artist", "a/b"])
/// path.string(1)    // "a/b"
/// path.tailString(0) // "artist/a/b"
/// ```
package struct SegmentBuffer: Sendable, Equatable {
    /// The segments joined with `/`, possibly inside a larger array (the URL's): read
    /// them through ``range(_:)`` and ``tail(_:)``, never whole.
    package private(set) var bytes: [UInt8] = []
    /// Where each segment starts in `bytes`, then one past the end of the last one (where
    /// a next segment would start after its `/`): segment `k` is `bounds[k]..<bounds[k + 1] - 1`.
    /// Empty when there are no segments, or when they are held in `packed`. (No field for
    /// the end: with one more, the InternalURL that holds this buffer outgrew 56 bytes and
    /// was copied where it is now moved; `packed` fits because its fragment is bytes.)
    private var bounds: [Int] = []
    /// The bounds inline, when nonzero: byte `k` (from the lowest) is bound `k`, the top
    /// byte their number (1...7), and `bounds` is empty. Only a path read in place is
    /// held so (``init(bytes:bounds:)``); a buffer is moved to `bounds` before it changes.
    private var packed: UInt64 = 0

    package init() {}

    package init(_ segments: [String]) {
        bounds.reserveCapacity(segments.count + 1)
        for segment in segments { appendSegment(segment) }
    }

    /// Segments already in `bytes`, at `bounds` (their starts, then one past the last
    /// one's end), held inline when ``InlineBounds`` took them all.
    init(bytes: [UInt8], bounds: InlineBounds) {
        self.bytes = bytes
        self.packed = bounds.packed
    }

    /// Segments already in `bytes`, at `bounds`.
    init(bytes: [UInt8], bounds: [Int]) {
        self.bytes = bytes
        self.bounds = bounds
    }

    /// Up to seven bounds below 256, gathered a byte each with no allocation; ``isFull``
    /// once an eighth or a larger one was refused (the caller then keeps an array).
    struct InlineBounds {
        private(set) var packed: UInt64 = 0
        private(set) var isFull = false

        init() {}

        @inline(__always)
        mutating func append(_ bound: Int) {
            let n = packed &>> 56
            guard n < 7, UInt(bitPattern: bound) < 256, !isFull else {
                isFull = true
                return
            }
            packed = (packed & 0x00FF_FFFF_FFFF_FFFF) | UInt64(truncatingIfNeeded: bound) &<< (n &* 8) | (n &+ 1) &<< 56
        }
    }

    /// Bound `k`.
    @inline(__always)
    private func bound(_ k: Int) -> Int {
        if packed == 0 { return bounds[k] }
        precondition(UInt(bitPattern: k) < UInt(packed &>> 56), "segment bound out of range")
        return Int(truncatingIfNeeded: packed &>> UInt64(truncatingIfNeeded: k &* 8)) & 0xFF
    }

    /// Whether the bounds are held inline (for tests).
    var boundsAreInline: Bool { packed != 0 }

    /// How many bounds there are.
    @inline(__always)
    private var boundCount: Int { packed == 0 ? bounds.count : Int(truncatingIfNeeded: packed &>> 56) }

    /// The inline bounds moved into `bounds`, before the buffer changes.
    private mutating func unpack() {
        let n = boundCount
        var all: [Int] = []
        all.reserveCapacity(n + 1)
        for k in 0..<n { all.append(bound(k)) }
        packed = 0
        bounds = all
    }

    package init(capacity: Int, segments: Int) {
        bytes.reserveCapacity(capacity)
        bounds.reserveCapacity(segments + 1)
    }

    /// The same segments: equal whether each is read in place or from a buffer of its own.
    package static func == (lhs: SegmentBuffer, rhs: SegmentBuffer) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for k in 0..<lhs.count where !lhs.bytes[lhs.range(k)].elementsEqual(rhs.bytes[rhs.range(k)]) { return false }
        return true
    }

    package var count: Int { packed == 0 ? Swift.max(bounds.count - 1, 0) : Int(truncatingIfNeeded: packed &>> 56) &- 1 }
    package var isEmpty: Bool { packed == 0 && bounds.isEmpty }

    /// Where the last segment ends.
    @inline(__always)
    private var end: Int { isEmpty ? 0 : bound(boundCount - 1) - 1 }

    @inline(__always)
    package func range(_ k: Int) -> Range<Int> {
        if packed == 0 { return bounds[k]..<bounds[k + 1] - 1 }
        // Both bounds from one shift, checked once.
        precondition(UInt(bitPattern: k) &+ 1 < UInt(packed &>> 56), "segment out of range")
        let word = packed &>> UInt64(truncatingIfNeeded: k &* 8)
        return Int(truncatingIfNeeded: word & 0xFF)..<Int(truncatingIfNeeded: word &>> 8 & 0xFF) - 1
    }

    /// Segments `k...` with the `/` between them.
    @inline(__always)
    package func tail(_ k: Int) -> Range<Int> { (k < count ? bound(k) : end)..<end }

    /// Segment `k` as text (the buffer holds UTF-8 only: see ``URLScope``).
    package func string(_ k: Int) -> String { String(decoding: bytes[range(k)], as: UTF8.self) }

    /// Segments `k...` joined with `/`, as a wildcard binds them.
    package func tailString(_ k: Int) -> String { String(decoding: bytes[tail(k)], as: UTF8.self) }

    package var strings: [String] { (0..<count).map(string) }

    /// Starts a new, empty segment; append its bytes next. A buffer read in place
    /// takes its segments into a buffer of its own first.
    @inline(__always)
    mutating func beginSegment() {
        if packed != 0 { unpack() }
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
    package mutating func appendSegment(_ text: String) {
        beginSegment()
        append(contentsOf: text.utf8)
    }

    /// Appends segment `k` of `other` as a new segment.
    package mutating func appendSegment(_ k: Int, of other: SegmentBuffer) {
        beginSegment()
        append(contentsOf: other.bytes[other.range(k)])
    }

    /// Removes the last segment (for `..`): its start, one past the `/` before it, is
    /// where the segment before it now ends.
    mutating func removeLast() {
        if packed != 0 { unpack() }
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
