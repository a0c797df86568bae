import CMessageFraming
import Testing
import TestSupport

/// The checker below libmicrohttpd's reads (`CMessageFraming`): what RFC 9112 7.1 frames
/// as a chunked body passes, whatever a connection carries before and after it; what it
/// does not is refused at its first wrong byte. Every stream is fed whole, a byte at a time
/// and in pieces of 2, 3 and 7 bytes: where reads split a stream never changes the verdict.
struct MessageFramingTests {
    static let post = "POST /v1/resolve HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
    static let looksChunked = "2\n{}\r\nTransfer-Encoding: chunked\r\n\r\nzz\n\u{0}\r\n"

    /// How many bytes are accepted and why the rest is refused, the same for every split.
    static func check(_ stream: [UInt8]) -> (accepted: Int, refusal: String?) {
        var verdicts: [(Int, String?)] = []
        for piece in [0, 1, 2, 3, 7] {
            var detail: UnsafePointer<CChar>? = nil
            let accepted = stream.withUnsafeBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) { sb_framing_check($0.baseAddress, $0.count, piece, &detail) }
            }
            verdicts.append((accepted, detail.map { String(cString: $0) }))
        }
        #expect(verdicts.allSatisfy { $0 == verdicts[0] }, "\(verdicts)")
        return verdicts[0]
    }

    static func check(_ stream: String) -> (accepted: Int, refusal: String?) { check(Array(stream.utf8)) }

    @Test(arguments: [
        // Sizes: leading zeros, either case of hex.
        post + "0002\r\n{}\r\n1A\r\n" + String(repeating: "x", count: 26) + "\r\n0\r\n\r\n",
        // Extensions: tokens, values, quoted strings with escapes, whitespace around ";" and "=".
        post + "2;a\r\n{}\r\n2 ; name = value;b=\"q \\\" \\\\ x\"\r\n{}\r\n000;last\r\n\r\n",
        // Trailers, and a request on the same connection after them.
        post + "2\r\n{}\r\n0\r\nX-Checksum: abc \t def\r\nX-Empty:\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
        // A fixed body that holds what would be refused in a chunked one is skipped whole.
        "POST /v1/resolve HTTP/1.1\r\nHost: x\r\nContent-Length: \(looksChunked.utf8.count)\r\n\r\n" + looksChunked
            + "POST /v1/resolve HTTP/1.1\r\nHost: x\r\ncontent-length:  3 \r\n\r\nabc",
        // Heads: bare LF line ends, an empty line before the request line, HTTP/1.0,
        // a header named in another case, a long request line.
        "\r\nGET /healthz HTTP/1.0\nHost: x\nTRANSFER-ENCODING: chunked\n\n1\r\nx\r\n0\r\n\r\n"
            + "GET /v1/resolve?url=/" + String(repeating: "a", count: 9_000) + " HTTP/1.1\r\nHost: x\r\n\r\n",
        // A head not yet whole, a body not yet whole: nothing to refuse yet.
        post + "10\r\n{\"urls\":",
        "GET / HTTP/1.1\r\nHost: x\r\nX-Transfer-Encod",
    ])
    func framesRFC9112AcceptsPass(stream: String) {
        let (accepted, refusal) = Self.check(stream)
        #expect(refusal == nil && accepted == stream.utf8.count, "\(refusal ?? "") at \(accepted)")
    }

    /// Each stream is refused at the byte after `prefix`, for `reason`.
    @Test(arguments: [
        ("2", "\n{}\r\n0\r\n\r\n", "a chunk line ends in LF without CR"),
        ("2;a\r", "b\r\n{}\r\n0\r\n\r\n", "a bare CR in a chunk line"),
        ("2\r", "x{}\r\n0\r\n\r\n", "a bare CR in a chunk line"),
        ("2;a=b", "\n{}\r\n0\r\n\r\n", "a chunk line ends in LF without CR"),
        ("", ";a\r\n{}\r\n0\r\n\r\n", "a chunk size must start with a hexadecimal digit"),
        ("", "-2\r\n{}\r\n0\r\n\r\n", "a chunk size must start with a hexadecimal digit"),
        ("2", "g\r\n{}\r\n0\r\n\r\n", "a chunk size holds a byte that is not a hexadecimal digit"),
        ("0000" + String(repeating: "f", count: 16), "f\r\n", "a chunk size past 16 hexadecimal digits"),
        ("2 ", "\r\n{}\r\n0\r\n\r\n", "whitespace after a chunk size must be followed by an extension"),
        ("2;a", "(b)\r\n{}\r\n0\r\n\r\n", "a chunk extension holds a byte outside its grammar (RFC 9112 7.1.1)"),
        ("2;a", "\u{0}\r\n{}\r\n0\r\n\r\n", "a chunk extension holds a byte outside its grammar (RFC 9112 7.1.1)"),
        ("2;a=\"b", "\u{0}\"\r\n{}\r\n0\r\n\r\n", "a chunk extension's quoted string holds a control byte"),
        ("2;a=\"b\\", "\u{7F}\"\r\n{}\r\n0\r\n\r\n", "a chunk extension's quoted string holds a control byte"),
        ("2\r\n{}", "\n0\r\n\r\n", "a chunk's data is not followed by CRLF"),
        ("2\r\n{}", "x\r\n0\r\n\r\n", "a chunk's data is not followed by CRLF"),
        ("2\r\n{}\r", "x0\r\n\r\n", "a chunk's data is not followed by CRLF"),
        ("0\r\nX-A: b", "\u{0}c\r\n\r\n", "a trailer field's value holds a control byte (CR, NUL or another)"),
        ("0\r\nX-A: b\r", "c\r\n\r\n", "a bare CR in the trailer section"),
        ("0\r\nX-A: b", "\nX-B: c\r\n\r\n", "a trailer line ends in LF without CR"),
        ("0\r\nX-A: b\r\n", " c\r\n\r\n", "obs-fold in the trailer section"),
        ("0\r\nX", " A: b\r\n\r\n", "a trailer field's name is not a token"),
        ("0\r\n", "\n", "a trailer line ends in LF without CR"),
        ("0\r\n\r", "x", "a bare CR in the trailer section"),
    ])
    func refusesAtTheFirstByteRFC9112Refuses(prefix: String, rest: String, reason: String) {
        let (accepted, refusal) = Self.check(Self.post + prefix + rest)
        #expect(refusal == reason)
        #expect(accepted == Self.post.utf8.count + prefix.utf8.count)
    }

    @Test func boundsChunkLinesAndTrailerSections() {
        let longExtension = Self.post + "2;" + String(repeating: "a", count: 100_000) + "\r\n{}\r\n0\r\n\r\n"
        let (accepted, refusal) = Self.check(longExtension)
        #expect(refusal == "a chunk line (its size and extensions) is longer than 4096 bytes")
        #expect(accepted == Self.post.utf8.count + 4096)
        let fits = Self.post + "2;" + String(repeating: "a", count: 4093) + "\r\n{}\r\n0\r\n\r\n"
        #expect(Self.check(fits).refusal == nil)
        let trailers = (0..<200).map { "X-Trailer-\($0): " + String(repeating: "v", count: 40) + "\r\n" }.joined()
        #expect(Self.check(Self.post + "0\r\n" + trailers + "\r\n").refusal == "a trailer section longer than 8192 bytes")
    }

    /// A Content-Length this checker cannot read is left to the daemon (which refuses it):
    /// nothing after it is checked, so nothing valid is refused by a guess.
    @Test func aLengthItCannotReadStopsTheChecking() {
        for head in ["Content-Length: 12a", "Content-Length: 4\r\nContent-Length: 5",
                     "Content-Length: 0000000000000000000000000000000000000000000000000000000000000007"] {
            let stream = "POST / HTTP/1.1\r\nHost: x\r\n\(head)\r\n\r\n" + Self.post + "2\n{}\r\n0\r\n\r\n"
            #expect(Self.check(stream).refusal == nil, "\(head)")
        }
    }

    /// 2,000 random connections of what RFC 9112 allows (requests without a body, fixed
    /// bodies of any bytes, chunked bodies with random sizes, extensions and trailers, one
    /// after another), read whole and in pieces: every byte is accepted. Then the first
    /// byte of one of its chunk lines made a bare LF: refused there.
    @Test func randomConnectionsRFC9112AllowsAreAcceptedWhole() {
        var rng = SplitMix(seed: 58)
        for run in 0..<2_000 {
            var stream: [UInt8] = [], chunkLines: [Int] = []
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                Self.appendRequest(to: &stream, chunkLines: &chunkLines, using: &rng)
            }
            let whole = Self.check(stream)
            #expect(whole.refusal == nil && whole.accepted == stream.count,
                    "run \(run): \(whole.refusal ?? "") at \(whole.accepted) of \(String(decoding: stream, as: UTF8.self).debugDescription)")
            guard let line = chunkLines.randomElement(using: &rng) else { continue }
            var broken = stream
            broken[line] = UInt8(ascii: "\n")
            let refused = Self.check(broken)
            #expect(refused.refusal != nil && refused.accepted == line, "run \(run)")
        }
    }

    static func appendRequest(to stream: inout [UInt8], chunkLines: inout [Int], using rng: inout SplitMix) {
        func append(_ text: String) { stream += Array(text.utf8) }
        func token() -> String {
            let tchars = Array("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
            return String((0..<Int.random(in: 1...8, using: &rng)).map { _ in tchars.randomElement(using: &rng)! })
        }
        func fieldText() -> [UInt8] {
            (0..<Int.random(in: 0...12, using: &rng)).map { _ in
                [UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8.random(in: 0x21...0x7E, using: &rng), UInt8.random(in: 0x80...0xFF, using: &rng)]
                    .randomElement(using: &rng)!
            }
        }
        let newline = Bool.random(using: &rng) ? "\r\n" : "\n"
        append("POST /v1/resolve HTTP/1.\(Int.random(in: 0...1, using: &rng))\(newline)Host: x\(newline)")
        switch Int.random(in: 0...2, using: &rng) {
        case 0:
            append(newline)
        case 1:
            let body = (0..<Int.random(in: 0...300, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            append("\(Bool.random(using: &rng) ? "Content-Length" : "content-length"):\(Bool.random(using: &rng) ? " " : "")\(body.count)\(newline)\(newline)")
            stream += body
        default:
            append("Transfer-Encoding: chunked\(newline)\(newline)")
            for last in (0..<Int.random(in: 0...4, using: &rng)).map({ _ in false }) + [true] {
                let size = last ? 0 : Int.random(in: 1...200, using: &rng)
                let digits = String(size, radix: 16, uppercase: Bool.random(using: &rng))
                chunkLines.append(stream.count)
                append(String(repeating: "0", count: Int.random(in: 0...3, using: &rng)) + digits)
                for _ in 0..<Int.random(in: 0...2, using: &rng) {
                    append((Bool.random(using: &rng) ? " ; " : ";") + token())
                    guard Bool.random(using: &rng) else { continue }
                    append(Bool.random(using: &rng) ? "=" : " = ")
                    if Bool.random(using: &rng) {
                        append(token())
                    } else {
                        // A quoted string: qdtext, with quoted pairs for its quote and backslash.
                        stream.append(UInt8(ascii: "\""))
                        for byte in fieldText() {
                            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { stream.append(UInt8(ascii: "\\")) }
                            stream.append(byte)
                        }
                        stream.append(UInt8(ascii: "\""))
                    }
                }
                append("\r\n")
                guard !last else { break }
                stream += (0..<size).map { _ in UInt8.random(in: 0...255, using: &rng) }
                append("\r\n")
            }
            for _ in 0..<Int.random(in: 0...2, using: &rng) {
                append(token() + ":")
                stream += fieldText()
                append("\r\n")
            }
            append("\r\n")
        }
    }
}
