/// Decoded path segments in one byte buffer, joined with `/`: segment `k` is
/// `bytes[range(k)]`, and the segments from `k` on, as a wildcard takes them, are the
/// contiguous `bytes[tail(k)]`. A `/` decoded from `%2F` stays inside its segment: the
/// ranges, not the bytes, say where segments end.
///
/// Matching reads segments as bytes from here, so a URL's path costs two allocations
/// however many segments it has; Strings are made only for the values a result returns.
///
/// ```swift
/// let path = SegmentBuffer(["artist", "a/b"])
/// path.string(1)    // "a/b"
/// path.tailString(0) // "artist/a/b"
/// ```
public struct SegmentBuffer: Sendable, Equatable {
    /// The segments joined with `/`.
    public private(set) var bytes: [UInt8] = []
    /// Where each segment starts in `bytes`; it ends at the next start minus the `/`.
    private var starts: [Int] = []

    public init() {}

    public init(_ segments: [String]) {
        starts.reserveCapacity(segments.count)
        for segment in segments { appendSegment(segment) }
    }

    /// Segments already joined: segment `k` starts at `starts[k]`.
    init(bytes: [UInt8], starts: [Int]) {
        self.bytes = bytes
        self.starts = starts
    }

    public init(capacity: Int, segments: Int) {
        bytes.reserveCapacity(capacity)
        starts.reserveCapacity(segments)
    }

    public var count: Int { starts.count }
    public var isEmpty: Bool { starts.isEmpty }

    @inline(__always)
    public func range(_ k: Int) -> Range<Int> {
        starts[k]..<(k + 1 < starts.count ? starts[k + 1] - 1 : bytes.count)
    }

    /// Segments `k...` with the `/` between them.
    @inline(__always)
    public func tail(_ k: Int) -> Range<Int> { (k < starts.count ? starts[k] : bytes.count)..<bytes.count }

    /// Segment `k` as text (the buffer holds UTF-8 only: see ``URLScope``).
    public func string(_ k: Int) -> String { String(decoding: bytes[range(k)], as: UTF8.self) }

    /// Segments `k...` joined with `/`, as a wildcard binds them.
    public func tailString(_ k: Int) -> String { String(decoding: bytes[tail(k)], as: UTF8.self) }

    public var strings: [String] { (0..<count).map(string) }

    /// Starts a new, empty segment; append its bytes next.
    @inline(__always)
    mutating func beginSegment() {
        if !starts.isEmpty { bytes.append(UInt8(ascii: "/")) }
        starts.append(bytes.count)
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) { bytes.append(byte) }

    /// Appends `text` as a new segment.
    public mutating func appendSegment(_ text: String) {
        beginSegment()
        bytes.append(contentsOf: text.utf8)
    }

    /// Appends segment `k` of `other` as a new segment.
    public mutating func appendSegment(_ k: Int, of other: SegmentBuffer) {
        beginSegment()
        bytes.append(contentsOf: other.bytes[other.range(k)])
    }

    /// Removes the last segment (for `..`).
    mutating func removeLast() {
        guard let start = starts.popLast() else { return }
        bytes.removeSubrange((starts.isEmpty ? start : start - 1)...)
    }

    /// Drops empty segments.
    mutating func removeEmpty() {
        var kept = SegmentBuffer(capacity: bytes.count, segments: count)
        for k in 0..<count where !range(k).isEmpty {
            kept.beginSegment()
            kept.bytes.append(contentsOf: bytes[range(k)])
        }
        self = kept
    }

    /// Whether every byte is ASCII, and whether any is an ASCII capital letter: one
    /// branch-free pass.
    var asciiAndCapitals: (isASCII: Bool, hasCapitals: Bool) {
        var high: UInt8 = 0
        var capitals: UInt8 = 0
        for b in bytes {
            high |= b
            capitals |= b &- UInt8(ascii: "A") < 26 ? 1 : 0
        }
        return (high < 0x80, capitals != 0)
    }

    /// A copy with ASCII capitals lowercased (for ASCII-only buffers, the same as
    /// ``lowercased()``).
    func asciiLowercased() -> SegmentBuffer {
        SegmentBuffer(bytes: bytes.map(ASCII.lowercased), starts: starts)
    }

    /// A copy with each segment lowercased as `String.lowercased()` does.
    func lowercased() -> SegmentBuffer {
        var out = SegmentBuffer(capacity: bytes.count, segments: count)
        for k in 0..<count {
            out.beginSegment()
            out.bytes.append(contentsOf: string(k).lowercased().utf8)
        }
        return out
    }
}
