/// Percent-decoding on UTF-8 bytes, exactly once, as docs/manifest.md requires.
package enum PercentDecoding {
    /// The value of an ASCII hex digit, or nil.
    @inline(__always)
    package static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte &- UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte &- UInt8(ascii: "a") &+ 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte &- UInt8(ascii: "A") &+ 10
        default: return nil
        }
    }

    /// Decodes `bytes[range]` once, turning `+` into a space when `plusAsSpace`
    /// (form encoding), and returns the result as a String, or nil when the decoded
    /// bytes are not UTF-8. The input is known to hold only well-formed `%XX`.
    package static func decode(_ bytes: [UInt8], _ range: Range<Int>, plusAsSpace: Bool) -> String? {
        // Over a span checked once, branch-free: most query keys and values have nothing
        // to decode and are ASCII.
        bytes.withSpan { decode(bytes, range, $0.extracting(range), plusAsSpace: plusAsSpace) }
    }

    private static func decode(_ bytes: [UInt8], _ range: Range<Int>, _ span: Span<UInt8>, plusAsSpace: Bool) -> String? {
        // Without form encoding, `+` is looked for as `%` is (found the same).
        let plus = plusAsSpace ? UInt8(ascii: "+") : UInt8(ascii: "%")
        var special: UInt8 = 0
        var high: UInt8 = 0
        for i in span.indices {
            let b = span[i]
            special |= (b == UInt8(ascii: "%") ? 1 : 0) | (b == plus ? 1 : 0)
            high |= b
        }
        if special == 0 {
            // ASCII needs no validation; String(decoding:) takes its all-ASCII fast path.
            return high < 0x80 ? String(decoding: bytes[range], as: UTF8.self) : UTF8Validation.string(bytes[range])
        }
        return UTF8Validation.string(unescaped(span, plusAsSpace: plusAsSpace)[...])
    }

    /// ``decode(_:_:plusAsSpace:)`` as the decoded UTF-8 bytes, or nil when they are not
    /// UTF-8.
    static func decodeBytes(_ bytes: [UInt8], _ range: Range<Int>, plusAsSpace: Bool) -> [UInt8]? {
        let out = bytes.withSpan { unescaped($0.extracting(range), plusAsSpace: plusAsSpace) }
        return UTF8Validation.isValid(out[...]) ? out : nil
    }

    /// `span` with each `%XX` decoded (and `+` made a space when `plusAsSpace`).
    private static func unescaped(_ span: Span<UInt8>, plusAsSpace: Bool) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(span.count)
        var i = 0
        while i < span.count {
            let b = span[i]
            if b == UInt8(ascii: "%"), i + 2 < span.count, let hi = hexValue(span[i + 1]), let lo = hexValue(span[i + 2]) {
                out.append(hi << 4 | lo)
                i += 3
            } else {
                out.append(plusAsSpace && b == UInt8(ascii: "+") ? UInt8(ascii: " ") : b)
                i += 1
            }
        }
        return out
    }

    /// Whether every `%` in `bytes` starts a `%XX` escape.
    static func isWellFormed(_ bytes: ArraySlice<UInt8>) -> Bool {
        var pending = 0
        for b in bytes {
            if pending > 0 {
                guard hexValue(b) != nil else { return false }
                pending -= 1
            } else if b == UInt8(ascii: "%") {
                pending = 2
            }
        }
        return pending == 0
    }
}
