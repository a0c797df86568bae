import CZlib

/// gzip compression (RFC 1952) with zlib, for bodies compressed once and served many
/// times.
public enum Gzip {
    /// The gzip-encoded bytes, or nil if zlib fails.
    public static func compress(_ input: [UInt8]) -> [UInt8]? {
        var stream = z_stream()
        guard sb_deflate_init_gzip(&stream) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(input.count))) + 32)
        let status: Int32 = input.withUnsafeBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                stream.next_in = UnsafeMutablePointer(mutating: inBuffer.baseAddress)
                stream.avail_in = UInt32(inBuffer.count)
                stream.next_out = outBuffer.baseAddress
                stream.avail_out = UInt32(outBuffer.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { return nil }
        output.removeSubrange(Int(stream.total_out)...)
        return output
    }
}
