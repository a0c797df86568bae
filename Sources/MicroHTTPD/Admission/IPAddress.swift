/// An IPv4 or IPv6 address as 128 bits, an IPv4 address as its IPv4-mapped IPv6 form
/// (`::ffff:192.0.2.1`), so that one comparison serves both families. Parsed from text
/// without a C call (header values are arbitrary bytes) and printed as RFC 5952 says.
package struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// The address's first and last 64 bits.
    package let high: UInt64
    package let low: UInt64

    package init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// An IPv4 address from its 32 bits.
    package init(ipv4 bits: UInt32) {
        self.init(high: 0, low: 0xFFFF_0000_0000 | UInt64(bits))
    }

    /// The unspecified address (`::`): a peer of no IP family.
    package static let unspecified = IPAddress(high: 0, low: 0)

    package var isIPv4: Bool { high == 0 && low >> 32 == 0xFFFF }

    /// The block of addresses one holder gets whole, which shares are kept by: the /24 of
    /// an IPv4 address, the /64 of an IPv6 one.
    package var block: ClientBlock {
        isIPv4 ? ClientBlock(prefix: (low & 0xFFFF_FFFF) >> 8, v6: false) : ClientBlock(prefix: high, v6: true)
    }

    /// `192.0.2.1` or `2001:db8::1`, nil when `text` is neither (a zone, a port, spaces
    /// and leading zeros in IPv4 are refused).
    package init?(_ text: some StringProtocol) {
        self.init(bytes: ArraySlice(text.utf8))
    }

    package init?(bytes: ArraySlice<UInt8>) {
        if bytes.contains(UInt8(ascii: ":")) {
            guard let (high, low) = Self.parseIPv6(bytes) else { return nil }
            self.init(high: high, low: low)
        } else {
            guard let bits = Self.parseIPv4(bytes) else { return nil }
            self.init(ipv4: bits)
        }
    }

    /// Dotted decimal, four parts, each 0 to 255 without a leading zero.
    static func parseIPv4(_ bytes: ArraySlice<UInt8>) -> UInt32? {
        var bits: UInt32 = 0, part: UInt32 = 0, digits = 0, parts = 0
        for b in bytes {
            if b == UInt8(ascii: ".") {
                guard digits > 0, parts < 3 else { return nil }
                bits = bits << 8 | part
                (part, digits, parts) = (0, 0, parts + 1)
            } else {
                guard b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9"), !(digits == 1 && part == 0) else { return nil }
                part = part * 10 + UInt32(b - UInt8(ascii: "0"))
                digits += 1
                guard part <= 255 else { return nil }
            }
        }
        guard digits > 0, parts == 3 else { return nil }
        return bits << 8 | part
    }

    /// RFC 4291 2.2: eight groups of 1 to 4 hex digits, one `::` for a run of zero
    /// groups, the last 32 bits optionally in dotted decimal.
    static func parseIPv6(_ bytes: ArraySlice<UInt8>) -> (UInt64, UInt64)? {
        var groups: [UInt16] = []
        groups.reserveCapacity(8)
        var gap: Int? = nil
        var i = bytes.startIndex
        if bytes.starts(with: [UInt8(ascii: ":"), UInt8(ascii: ":")]) {
            gap = 0
            i += 2
            if i == bytes.endIndex { return (0, 0) }
        } else if bytes.first == UInt8(ascii: ":") {
            return nil
        }
        while i < bytes.endIndex {
            // An embedded IPv4 address ends the text.
            var j = i
            while j < bytes.endIndex, bytes[j] != UInt8(ascii: ":"), bytes[j] != UInt8(ascii: ".") { j += 1 }
            if j < bytes.endIndex, bytes[j] == UInt8(ascii: ".") {
                guard groups.count <= 6, let v4 = parseIPv4(bytes[i...]) else { return nil }
                groups.append(UInt16(v4 >> 16))
                groups.append(UInt16(v4 & 0xFFFF))
                i = bytes.endIndex
                break
            }
            guard j > i, j - i <= 4, groups.count < 8 else { return nil }
            var group: UInt16 = 0
            for b in bytes[i..<j] {
                guard let digit = ASCIIHex.value(b) else { return nil }
                group = group << 4 | UInt16(digit)
            }
            groups.append(group)
            i = j
            if i == bytes.endIndex { break }
            // A ':' follows: one more group, or '::'.
            i += 1
            if i < bytes.endIndex, bytes[i] == UInt8(ascii: ":") {
                guard gap == nil else { return nil }
                gap = groups.count
                i += 1
            } else if i == bytes.endIndex {
                return nil
            }
        }
        if let gap {
            guard groups.count < 8 else { return nil }
            groups.insert(contentsOf: repeatElement(0, count: 8 - groups.count), at: gap)
        }
        guard groups.count == 8 else { return nil }
        var high: UInt64 = 0, low: UInt64 = 0
        for k in 0..<4 { high = high << 16 | UInt64(groups[k]) }
        for k in 4..<8 { low = low << 16 | UInt64(groups[k]) }
        return (high, low)
    }

    /// `192.0.2.1` for an IPv4 address; RFC 5952 for IPv6: lowercase, no leading zeros,
    /// the longest run of two or more zero groups (the first of equals) as `::`.
    package var description: String {
        if isIPv4 {
            let v4 = UInt32(truncatingIfNeeded: low)
            return "\(v4 >> 24).\(v4 >> 16 & 0xFF).\(v4 >> 8 & 0xFF).\(v4 & 0xFF)"
        }
        let groups = (0..<8).map { k in UInt16(truncatingIfNeeded: (k < 4 ? high : low) >> (48 - 16 * (k % 4))) }
        var best = (start: 0, count: 0), run = (start: 0, count: 0)
        for (k, group) in groups.enumerated() {
            if group == 0 {
                if run.count == 0 { run.start = k }
                run.count += 1
                if run.count > best.count { best = run }
            } else {
                run.count = 0
            }
        }
        func hex(_ range: Range<Int>) -> String { groups[range].map { String($0, radix: 16) }.joined(separator: ":") }
        guard best.count >= 2 else { return hex(0..<8) }
        return hex(0..<best.start) + "::" + hex((best.start + best.count)..<8)
    }
}

/// The block of addresses a client's shares are counted by (``IPAddress/block``): the
/// /24 of an IPv4 address, the /64 of an IPv6 one.
package struct ClientBlock: Hashable, Sendable, CustomStringConvertible {
    package let prefix: UInt64
    package let v6: Bool

    /// `192.0.2.0/24` or `2001:db8:0:1::/64`.
    package var description: String {
        v6 ? "\(IPAddress(high: prefix, low: 0))/64" : "\(IPAddress(ipv4: UInt32(truncatingIfNeeded: prefix << 8)))/24"
    }
}

/// A range of addresses in CIDR notation (`10.0.0.0/8`, `fd00::/8`, `192.0.2.1` for one
/// address). An IPv4 range holds the IPv4-mapped IPv6 addresses of the same range, so a
/// dual-stack socket's peers match it too.
package struct AddressRange: Hashable, Sendable, CustomStringConvertible {
    package let address: IPAddress
    /// Bits of the prefix, counted in the IPv6 form (an IPv4 `/8` is 104).
    private let bits: Int
    private let maskHigh: UInt64
    private let maskLow: UInt64

    /// Nil when `text` is not an address with an optional `/length` within its family's.
    /// Bits past the prefix are ignored (`10.1.2.3/8` is `10.0.0.0/8`).
    package init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let parsed = IPAddress(parts[0]) else { return nil }
        // The family as written: `::ffff:0:0/96` is an IPv6 range.
        let v4 = !parts[0].contains(":")
        let width = v4 ? 32 : 128
        var length = width
        if parts.count == 2 {
            guard parts[1].utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), parts[1].utf8.count <= 3,
                  let n = Int(parts[1]), n <= width else { return nil }
            length = n
        }
        bits = v4 ? 96 + length : length
        maskHigh = bits >= 64 ? .max : bits == 0 ? 0 : ~(UInt64.max >> UInt64(bits))
        maskLow = bits >= 128 ? .max : bits <= 64 ? 0 : ~(UInt64.max >> UInt64(bits - 64))
        address = IPAddress(high: parsed.high & maskHigh, low: parsed.low & maskLow)
    }

    package func contains(_ candidate: IPAddress) -> Bool {
        candidate.high & maskHigh == address.high && candidate.low & maskLow == address.low
    }

    /// Whether the range holds every IPv6 address (`::/0`) or every IPv4 one (`0.0.0.0/0`,
    /// `::ffff:0:0/96` or anything wider around it).
    package var coversAFamily: Bool { bits == 0 || (bits <= 96 && contains(IPAddress(ipv4: 0))) }

    package var description: String { "\(address)/\(address.isIPv4 && bits >= 96 ? bits - 96 : bits)" }
}

enum ASCIIHex {
    static func value(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): b - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
