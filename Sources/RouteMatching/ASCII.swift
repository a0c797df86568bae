/// ASCII case folding, comparison and search on bytes, shared by the URL parser, the
/// trie and the server's header readers: `A`-`Z` lowered, every other byte (UTF-8
/// included) unchanged.
package enum ASCII {
    @inlinable @inline(__always)
    package static func lowercased(_ b: UInt8) -> UInt8 { b &- UInt8(ascii: "A") < 26 ? b | 0x20 : b }

    // MARK: - Comparing

    /// Whether two byte spans hold the same bytes. Every byte is compared, with no early
    /// exit: a loop the compiler vectorizes (an ETag is 73 bytes, compared on every poll).
    @inlinable
    package static func equal(_ a: Span<UInt8>, _ b: Span<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for k in 0..<a.count { difference |= a[k] ^ b[k] }
        return difference == 0
    }

    /// Whether `bytes` spell the lowercase ASCII `word`, ignoring ASCII case (a scheme, a
    /// content coding, an ETag's `*`).
    @inlinable
    package static func equalsIgnoringCase(_ bytes: Span<UInt8>, _ word: StaticString) -> Bool {
        guard bytes.count == word.utf8CodeUnitCount else { return false }
        return word.withUTF8Buffer { w in
            for k in 0..<w.count where lowercased(bytes[k]) != w[k] { return false }
            return true
        }
    }

    // MARK: - Eight bytes at a time

    private static let ones: UInt64 = 0x0101_0101_0101_0101, tops: UInt64 = 0x8080_8080_8080_8080

    /// Bytes `i..<i + 8` of `bytes` as a little-endian word: one load once inlined (the
    /// compiler joins the eight reads of a span checked once).
    @inline(__always)
    package static func word(_ bytes: Span<UInt8>, at i: Int) -> UInt64 {
        let part = bytes.extracting(i..<(i &+ 8))
        var w: UInt64 = 0
        for k in 0..<8 { w |= UInt64(part[k]) << UInt64(8 &* k) }
        return w
    }

    /// ``lowercased(_:)`` on each byte of a word at once: a byte's low seven bits plus
    /// 0x3F carry into its top bit from `A` (0x41) on, plus 0x25 from past `Z` (0x5B);
    /// neither sum leaves its byte. Bytes from 0x80 on are left as they are.
    @inline(__always)
    package static func lowercased(word w: UInt64) -> UInt64 {
        let low = w & (0x7F &* ones)
        let capital = (low &+ 0x3F &* ones) & ~(low &+ 0x25 &* ones) & ~w & tops
        return w | capital >> 2
    }

    /// The index of the first `a` or `b` in `bytes` from `start`, or `bytes.count`: eight
    /// bytes a step (a byte equal to `a` is a zero byte of `w ^ a…a`, and the lowest zero
    /// byte of a word is found exactly by the borrow trick).
    @inline(__always)
    package static func firstIndex(of a: UInt8, or b: UInt8, in bytes: Span<UInt8>, from start: Int) -> Int {
        var i = start
        while i &+ 8 <= bytes.count {
            let w = word(bytes, at: i)
            let x = w ^ (UInt64(a) &* ones), y = w ^ (UInt64(b) &* ones)
            let found = ((x &- ones) & ~x | (y &- ones) & ~y) & tops
            if found != 0 { return i &+ found.trailingZeroBitCount >> 3 }
            i &+= 8
        }
        while i < bytes.count, bytes[i] != a, bytes[i] != b { i &+= 1 }
        return i
    }
}
