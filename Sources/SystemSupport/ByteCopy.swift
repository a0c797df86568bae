extension Array where Element == UInt8 {
    /// Appends `source` in one copy. `append(contentsOf:)` takes a generic path (~90
    /// instructions a call for a few bytes); this reserves through an output span and
    /// copies with `memcpy` (~45). For the JSON writer, which appends pieces made ahead
    /// of time (a route's serialized head and tail, a manifest's suffix) to every result.
    @inlinable @inline(__always)
    public mutating func append(copying source: Span<UInt8>) {
        let count = source.count
        guard count > 0 else { return }
        // A local function marked always-inline: as a closure it stayed a call once
        // inlined into another module.
        @inline(__always) func copy(_ out: inout OutputSpan<UInt8>) {
            out.withUnsafeMutableBufferPointer { buffer, initialized in
                source.withUnsafeBufferPointer { bytes in
                    // Both counts are `count` (non-zero): neither base address is nil.
                    buffer.baseAddress!.initialize(from: bytes.baseAddress!, count: count)
                }
                initialized = count
            }
        }
        append(addingCapacity: count) { out in copy(&out) }
    }

    /// Appends `source` between two `delimiter`s (a JSON string's quotes): one
    /// reservation for the three.
    @inlinable @inline(__always)
    public mutating func append(copying source: Span<UInt8>, between delimiter: UInt8) {
        let count = source.count
        @inline(__always) func copy(_ out: inout OutputSpan<UInt8>) {
            out.append(delimiter)
            out.withUnsafeMutableBufferPointer { buffer, initialized in
                if count > 0 {
                    source.withUnsafeBufferPointer { bytes in
                        // `buffer` is the whole reservation: the copy goes after the
                        // `initialized` bytes (the delimiter), with room for one more.
                        buffer.baseAddress!.advanced(by: initialized).initialize(from: bytes.baseAddress!, count: count)
                    }
                }
                initialized += count
            }
            out.append(delimiter)
        }
        append(addingCapacity: count + 2) { out in copy(&out) }
    }

    /// Appends the UTF-8 bytes of a literal, as ``append(copying:)-(Span<UInt8>)`` does.
    @inlinable @inline(__always)
    public mutating func append(copying text: StaticString) {
        text.withUTF8Buffer { append(copying: $0.span) }
    }
}
