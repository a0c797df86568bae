import Crypto

/// SHA-256 as the manifest's ETag, the client's cache and the diff's fingerprints write
/// it: lowercase hex. swift-crypto's (BoringSSL, using the CPU's SHA extensions where it
/// has them), measured against a portable one in docs/benchmarks.md.
package enum SHA256 {
    /// The digest of `message` in lowercase hex.
    package static func hex(_ message: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for byte in Crypto.SHA256.hash(data: message) {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
