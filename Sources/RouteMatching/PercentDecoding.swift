/// Percent-decoding on UTF-8 bytes, exactly once, as SPEC §2 requires.
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
    static func decode(_ bytes: [UInt8], _ range: Range<Int>, plusAsSpace: Bool) -> String? {
        var needsWork = false
        var ascii = true
        for i in range {
            let b = bytes[i]
            if b == UInt8(ascii: "%") || (plusAsSpace && b == UInt8(ascii: "+")) { needsWork = true }
            if b >= 0x80 { ascii = false }
        }
        if !needsWork {
            // ASCII needs no validation; String(decoding:) takes its all-ASCII fast path.
            return ascii ? String(decoding: bytes[range], as: UTF8.self) : UTF8Validation.string(bytes[range])
        }
        var out = [UInt8]()
        out.reserveCapacity(range.count)
        var i = range.lowerBound
        while i < range.upperBound {
            let b = bytes[i]
            if b == UInt8(ascii: "%"), i + 2 < range.upperBound, let hi = hexValue(bytes[i + 1]), let lo = hexValue(bytes[i + 2]) {
                out.append(hi << 4 | lo)
                i += 3
            } else if plusAsSpace && b == UInt8(ascii: "+") {
                out.append(UInt8(ascii: " "))
                i += 1
            } else {
                out.append(b)
                i += 1
            }
        }
        return UTF8Validation.string(out[...])
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
