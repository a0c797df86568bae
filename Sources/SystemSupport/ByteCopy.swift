extension OutputSpan where Element == UInt8 {
    /// Appends `source` with one `memcpy`. The span must have room for it: checked
    /// before any byte is written.
    @inlinable @inline(__always)
    package mutating func append(copying source: Span<UInt8>) {
        let count = source.count
        precondition(count <= freeCapacity, "OutputSpan.append(copying:): no room for the bytes")
        guard count > 0 else { return }
        withUnsafeMutableBufferPointer { buffer, initialized in
            source.withUnsafeBufferPointer { bytes in
                // `buffer` is the whole span: the copy goes after its `initialized` bytes,
                // into the room checked above. Neither base address is nil (count > 0).
                buffer.baseAddress!.advanced(by: initialized).initialize(from: bytes.baseAddress!, count: count)
            }
            initialized += count
        }
    }
}

extension Array where Element == UInt8 {
    /// Appends `source` in one copy. `append(contentsOf:)` takes a generic path, costly for
    /// a few bytes; this reserves through an output span and copies with `memcpy`
    /// (docs/benchmarks.md has the figures). For the JSON writer, which appends pieces made ahead
    /// of time (a route's serialized head and tail, a manifest's suffix) to every result.
    @inlinable @inline(__always)
    package mutating func append(copying source: Span<UInt8>) {
        guard !source.isEmpty else { return }
        // A local function marked always-inline: as a closure it stayed a call once
        // inlined into another module.
        @inline(__always) func copy(_ out: inout OutputSpan<UInt8>) {
            out.append(copying: source)
        }
        append(addingCapacity: source.count) { out in copy(&out) }
    }

    /// Appends `source` between two `delimiter`s (a JSON string's quotes): one
    /// reservation for the three.
    @inlinable @inline(__always)
    package mutating func append(copying source: Span<UInt8>, between delimiter: UInt8) {
        @inline(__always) func copy(_ out: inout OutputSpan<UInt8>) {
            out.append(delimiter)
            out.append(copying: source)
            out.append(delimiter)
        }
        append(addingCapacity: source.count + 2) { out in copy(&out) }
    }

    /// Appends the UTF-8 bytes of a literal, as ``append(copying:)-(Span<UInt8>)`` does.
    @inlinable @inline(__always)
    package mutating func append(copying text: StaticString) {
        text.withUTF8Buffer { append(copying: $0.span) }
    }
}
