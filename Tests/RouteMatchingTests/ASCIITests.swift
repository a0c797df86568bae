import Testing
@testable import RouteMatching

struct ASCIITests {
    /// The word-at-a-time scan finds what a byte loop finds: every start in inputs of 0 to
    /// 40 bytes holding the bytes looked for, their neighbours and bytes from 0x80 on, at
    /// every position of a word.
    @Test func firstIndexFindsWhatAByteLoopFinds() {
        let alphabet: [UInt8] = [UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "a"), 0x3E, 0x40, 0x22, 0x24, 0x00, 0x80, 0xBF, 0xFF, 0x3F ^ 0x80]
        var seed: UInt64 = 0x5EED
        for length in 0...40 {
            for _ in 0..<40 {
                var bytes: [UInt8] = []
                for _ in 0..<length {
                    seed = seed &* 6364136223846793005 &+ 1442695040888963407
                    // Mostly letters, as URLs are, so that most words hold neither byte.
                    let pick = Int(seed >> 59)
                    bytes.append(pick < alphabet.count ? alphabet[pick] : UInt8(ascii: "a") + UInt8(pick % 26))
                }
                for start in 0...length {
                    var expected = start
                    while expected < length, bytes[expected] != UInt8(ascii: "?"), bytes[expected] != UInt8(ascii: "#") { expected += 1 }
                    #expect(ASCII.firstIndex(of: UInt8(ascii: "?"), or: UInt8(ascii: "#"), in: bytes.span, from: start) == expected,
                            "\(bytes) from \(start)")
                }
            }
        }
    }
}
