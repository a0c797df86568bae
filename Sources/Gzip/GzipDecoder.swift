import CZlib

/// Streaming gzip decompression (RFC 1952), for gzipped files read in chunks (a traffic
/// log of gigabytes is never whole in memory). Reads concatenated members, as `gzip -d`
/// does (`cat a.gz b.gz` and logrotate's appended files are such).
public final class GzipDecoder {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    private var stream = z_stream()
    private var open = false
    private var output = [UInt8](repeating: 0, count: 256 << 10)
    /// Whether a member has begun and not ended: at the end of the file, it was cut short.
    public private(set) var midMember = false

    public init() throws(Failure) {
        guard sb_inflate_init_gzip(&stream) == Z_OK else { throw Failure(description: "zlib could not start") }
        open = true
    }

    deinit {
        if open { inflateEnd(&stream) }
    }

    /// Whether `bytes` start as a gzip file does.
    public static func isGzip(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.count >= 2 && bytes[bytes.startIndex] == 0x1F && bytes[bytes.startIndex + 1] == 0x8B
    }

    /// Decompresses `input`, handing the output to `body` in pieces.
    public func decode(_ input: [UInt8], _ body: (ArraySlice<UInt8>) -> Void) throws(Failure) {
        var consumed = 0
        while consumed < input.count {
            let before = consumed
            var produced = 0
            let status: Int32 = input.withUnsafeBufferPointer { inBuffer in
                output.withUnsafeMutableBufferPointer { outBuffer in
                    stream.next_in = UnsafeMutablePointer(mutating: inBuffer.baseAddress! + consumed)
                    stream.avail_in = UInt32(inBuffer.count - consumed)
                    stream.next_out = outBuffer.baseAddress
                    stream.avail_out = UInt32(outBuffer.count)
                    let status = inflate(&stream, Z_NO_FLUSH)
                    consumed = inBuffer.count - Int(stream.avail_in)
                    produced = outBuffer.count - Int(stream.avail_out)
                    return status
                }
            }
            if produced > 0 { body(output[..<produced]) }
            if consumed > before || produced > 0 { midMember = true }
            switch status {
            case Z_OK, Z_BUF_ERROR:
                if consumed == before && produced == 0 { return }
            case Z_STREAM_END:
                // Another member may follow.
                midMember = false
                guard inflateReset(&stream) == Z_OK else { throw Failure(description: "zlib could not read the next member") }
            default:
                throw Failure(description: "not valid gzip data (zlib status \(status))")
            }
        }
    }
}
