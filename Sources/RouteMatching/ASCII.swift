/// ASCII case folding on bytes, shared by the URL parser, the trie and the server's
/// header readers: `A`-`Z` lowered, every other byte (UTF-8 included) unchanged.
package enum ASCII {
    @inlinable @inline(__always)
    package static func lowercased(_ b: UInt8) -> UInt8 { b &- UInt8(ascii: "A") < 26 ? b | 0x20 : b }
}
