/// UTF-8 validation (RFC 3629: no overlong forms, no surrogates, nothing above
/// U+10FFFF) with an ASCII fast path. The standard library's `String(validating:)` is
/// generic and instantiates type metadata on every call, which showed as ~10% of a
/// resolution; this is the request path's validator.
package enum UTF8Validation {
    package static func isValid(_ bytes: ArraySlice<UInt8>) -> Bool {
        var i = bytes.startIndex
        let end = bytes.endIndex
        while i < end {
            let b0 = bytes[i]
            if b0 < 0x80 { i += 1; continue }
            let count: Int
            var minimum: UInt32
            var scalar: UInt32
            switch b0 {
            case 0xC2...0xDF: count = 2; minimum = 0x80; scalar = UInt32(b0 & 0x1F)
            case 0xE0...0xEF: count = 3; minimum = 0x800; scalar = UInt32(b0 & 0x0F)
            case 0xF0...0xF4: count = 4; minimum = 0x10000; scalar = UInt32(b0 & 0x07)
            default: return false
            }
            guard end - i >= count else { return false }
            for k in 1..<count {
                let b = bytes[i + k]
                guard b & 0xC0 == 0x80 else { return false }
                scalar = scalar << 6 | UInt32(b & 0x3F)
            }
            guard scalar >= minimum, scalar <= 0x10FFFF, !(0xD800...0xDFFF).contains(scalar) else { return false }
            i += count
        }
        return true
    }

    /// The bytes as a String, or nil when they are not UTF-8.
    @inline(__always)
    package static func string(_ bytes: ArraySlice<UInt8>) -> String? {
        isValid(bytes) ? String(decoding: bytes, as: UTF8.self) : nil
    }
}
