extension String {
    /// Calls `body` with the string's UTF-8 as a span. `String.UTF8View.span` is on Linux
    /// and on Apple's OSes from 26; below that, on the older OSes the package's floors allow,
    /// the bytes are copied once into a `ContiguousArray`, whose `span` back-deploys.
    @inline(__always)
    package func withUTF8Span<Result>(_ body: (Span<UInt8>) throws -> Result) rethrows -> Result {
        if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) { return try body(utf8.span) }
        let copy = ContiguousArray(utf8)
        return try body(copy.span)
    }
}

extension Array where Element == UInt8 {
    /// Calls `body` with the bytes as a span. `Array.span` is on Linux and on Apple's OSes
    /// from 26, and borrows the buffer; below that a slice's span (which back-deploys) is
    /// taken, at the cost of a retain of the buffer.
    @inline(__always)
    package func withSpan<Result>(_ body: (Span<UInt8>) throws -> Result) rethrows -> Result {
        if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) { return try body(span) }
        let all = self[...]
        return try body(all.span)
    }
}
