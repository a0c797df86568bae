/// The fuzz targets are built by swiftc alone, without swift-crypto, so the manifest
/// target compiles Sources/Switchboard with this in place of Support/SHA256.swift: the
/// ETag's digest becomes FNV-1a, in hex. The fuzzers exercise parsing, validation and
/// compilation; the digest itself is BoringSSL's, and SupportTests check it against
/// FIPS 180 vectors.
package enum SHA256 {
    package static func hex(_ message: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in message { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return String(repeating: "0", count: 48) + String(hash, radix: 16).leftPadded(to: 16)
    }
}

private extension String {
    func leftPadded(to count: Int) -> String { String(repeating: "0", count: max(0, count - self.count)) + self }
}
