/// SHA-256 (FIPS 180-4), for the manifest ETag. Small and dependency-free: it runs
/// once per manifest load, never on the request path.
package struct SHA256: Sendable {
    private static let roundConstants: InlineArray<64, UInt32> = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    /// The 32-byte digest of `message`.
    package static func hash(_ message: [UInt8]) -> [UInt8] {
        var state = State()
        // Whole blocks straight from the message; the last partial block and the
        // padding (0x80, zeros, the bit length) go through a small tail buffer.
        let whole = message.count / 64 * 64
        for offset in stride(from: 0, to: whole, by: 64) { state.compress(message, at: offset) }
        var tail = Array(message[whole...])
        tail.append(0x80)
        while tail.count % 64 != 56 { tail.append(0) }
        let bitLength = UInt64(message.count) &* 8
        for shift in stride(from: 56, through: 0, by: -8) { tail.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }
        for offset in stride(from: 0, to: tail.count, by: 64) { state.compress(tail, at: offset) }
        return state.digest
    }

    /// The eight working words and the message schedule, reused block after block.
    private struct State {
        var h: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) =
            (0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19)

        mutating func compress(_ data: [UInt8], at chunk: Int) {
            // On the stack: no reference counting or uniqueness checks in the loops.
            var w = InlineArray<64, UInt32>(repeating: 0)
            for t in 0..<16 {
                let i = chunk + t * 4
                w[t] = UInt32(data[i]) << 24 | UInt32(data[i + 1]) << 16 | UInt32(data[i + 2]) << 8 | UInt32(data[i + 3])
            }
            for t in 16..<64 {
                let w15 = w[t - 15], w2 = w[t - 2]
                let s0 = w15.rotatedRight(7) ^ w15.rotatedRight(18) ^ (w15 >> 3)
                let s1 = w2.rotatedRight(17) ^ w2.rotatedRight(19) ^ (w2 >> 10)
                w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
                w[t - 16] = w[t - 16] &+ SHA256.roundConstants[t - 16]
            }
            for t in 48..<64 { w[t] = w[t] &+ SHA256.roundConstants[t] }
            var (a, b, c, d, e, f, g, h) = self.h
            // Eight rounds per pass with the working variables' roles rotated in the
            // arguments instead of moved between registers every round.
            for t in stride(from: 0, to: 64, by: 8) {
                Self.round(a, b, c, &d, e, f, g, &h, w[t & 63])
                Self.round(h, a, b, &c, d, e, f, &g, w[(t + 1) & 63])
                Self.round(g, h, a, &b, c, d, e, &f, w[(t + 2) & 63])
                Self.round(f, g, h, &a, b, c, d, &e, w[(t + 3) & 63])
                Self.round(e, f, g, &h, a, b, c, &d, w[(t + 4) & 63])
                Self.round(d, e, f, &g, h, a, b, &c, w[(t + 5) & 63])
                Self.round(c, d, e, &f, g, h, a, &b, w[(t + 6) & 63])
                Self.round(b, c, d, &e, f, g, h, &a, w[(t + 7) & 63])
            }
            self.h = (self.h.0 &+ a, self.h.1 &+ b, self.h.2 &+ c, self.h.3 &+ d,
                      self.h.4 &+ e, self.h.5 &+ f, self.h.6 &+ g, self.h.7 &+ h)
        }

        /// One round; `kw` is the round constant plus the schedule word.
        @inline(__always)
        private static func round(_ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: inout UInt32,
                                  _ e: UInt32, _ f: UInt32, _ g: UInt32, _ h: inout UInt32, _ kw: UInt32) {
            let t1 = h &+ (e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)) &+ (g ^ (e & (f ^ g))) &+ kw
            d = d &+ t1
            h = t1 &+ (a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)) &+ ((a & b) | (c & (a | b)))
        }

        var digest: [UInt8] {
            [h.0, h.1, h.2, h.3, h.4, h.5, h.6, h.7].flatMap { v in [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> UInt32($0)) } }
        }
    }

    /// The digest as 64 lowercase hex digits.
    package static func hex(_ message: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        for byte in hash(message) {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension UInt32 {
    @inline(__always) func rotatedRight(_ n: UInt32) -> UInt32 { (self >> n) | (self << (32 - n)) }
}
