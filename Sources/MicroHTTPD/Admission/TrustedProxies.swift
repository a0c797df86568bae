/// The one header a trusted proxy writes the client into (`serve --forwarded-header`).
/// Only that one is read: a proxy that appends to one passes the other through from the
/// client untouched, so believing it would let any client pick its own block.
package enum ForwardedHeader: String, Sendable, CaseIterable {
    /// `X-Forwarded-For`: what nginx, HAProxy (`option forwardfor`), Caddy, Apache,
    /// Envoy, ingress-nginx and the cloud load balancers append to. The default.
    case xForwardedFor = "x-forwarded-for"
    /// RFC 7239's `Forwarded: for=`, for proxies that write that one (HAProxy's
    /// `option forwarded`).
    case forwarded

    /// The header's name as it is written on the wire.
    package var fieldName: String { self == .forwarded ? "Forwarded" : "X-Forwarded-For" }
}

/// The peers whose word on the client is believed (`serve --trusted-proxy`): a reverse
/// proxy, an ingress, a mesh's sidecar or a CDN. For a request from one of them, the
/// client is the one it forwarded in ``header``: the rightmost address that is not itself
/// trusted (as nginx's `real_ip_recursive on`: every proxy of the chain appends the address
/// it got the request from, so the addresses right of the client are proxies, and what is
/// left of it is what the client said of itself). When every address is trusted, the
/// client is the rightmost, the one the nearest proxy appended, never one further left,
/// which the client could have written. When the header is absent or malformed, or its
/// entry names no address (`for=unknown`, an obfuscated `_identifier`), the peer itself.
/// A peer that is not trusted is never asked.
package struct TrustedProxies: Sendable, Equatable {
    package let ranges: [AddressRange]
    package let header: ForwardedHeader

    package init(_ ranges: [AddressRange] = [], header: ForwardedHeader = .xForwardedFor) {
        self.ranges = ranges
        self.header = header
    }

    /// Parses `10.0.0.0/8`-style ranges; the first that is not one, or that covers every
    /// address of its family (`0.0.0.0/0`, `::/0`), is thrown back.
    package init(parsing texts: [String], header: ForwardedHeader = .xForwardedFor) throws(InvalidRange) {
        var ranges: [AddressRange] = []
        for text in texts {
            let trimmed = text.trimmingASCIISpaces()
            guard let range = AddressRange(trimmed) else { throw InvalidRange(text: text) }
            // Trusting every address trusts the client itself: whatever it wrote left of
            // what the proxy appended would be read as its address.
            if range.coversAFamily { throw InvalidRange(text: text, coversEveryAddress: true) }
            ranges.append(range)
        }
        self.init(ranges, header: header)
    }

    package struct InvalidRange: Error, Sendable, Equatable, CustomStringConvertible {
        package let text: String
        /// The range parses but holds every IPv4 or every IPv6 address.
        package let coversEveryAddress: Bool

        package init(text: String, coversEveryAddress: Bool = false) {
            self.text = text
            self.coversEveryAddress = coversEveryAddress
        }

        package var description: String {
            if coversEveryAddress {
                return "'\(text)' trusts every address, so any client could name its own address in the forwarded header: name the proxy's addresses (10.0.0.5), or the cluster's pod range (10.244.0.0/16) when the proxy is an ingress or a sidecar"
            }
            return "'\(text)' is not an address range: write an IPv4 or IPv6 address with an optional prefix length (10.0.0.0/8, fd00::/8, 192.0.2.7)"
        }
    }

    package var isEmpty: Bool { ranges.isEmpty }

    package func contains(_ address: IPAddress) -> Bool {
        for range in ranges where range.contains(address) { return true }
        return false
    }

    /// The client a trusted proxy forwarded in ``header`` (its lines joined by commas), or
    /// nil when the value names none: the peer is then the client.
    package func forwardedClient(_ value: ArraySlice<UInt8>) -> IPAddress? {
        switch header {
        case .xForwardedFor:
            return choose(Self.xForwardedFor(value))
        case .forwarded:
            guard let nodes = Self.forwardedFor(value) else { return nil }
            return choose(nodes)
        }
    }

    /// The rightmost address not trusted, walking from the right; the rightmost when all
    /// are; nil when there is none, or when the walk meets an entry that is no address
    /// before it ends.
    private func choose(_ entries: [IPAddress?]) -> IPAddress? {
        guard let last = entries.last else { return nil }
        for entry in entries.reversed() {
            guard let address = entry else { return nil }
            if !contains(address) { return address }
        }
        return last
    }

    /// The entries of an `X-Forwarded-For` value, left to right: an address each (nil for
    /// one that is none). An address may carry a port (`192.0.2.1:443`,
    /// `[2001:db8::1]:443`) or brackets; empty entries are skipped.
    static func xForwardedFor(_ value: ArraySlice<UInt8>) -> [IPAddress?] {
        value.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false).compactMap { raw in
            let entry = trimOWS(raw)
            return entry.isEmpty ? Optional<IPAddress?>.none : .some(node(entry))
        }
    }

    /// The `for=` nodes of a `Forwarded` value (RFC 7239 4), left to right: an address
    /// each, nil for one that names none (`unknown`, `_hidden`). Elements without `for=`
    /// give nothing. Nil when the value does not parse: a pair without `=`, a quoted
    /// string not closed, a node that is neither an address nor an identifier.
    static func forwardedFor(_ value: ArraySlice<UInt8>) -> [IPAddress?]? {
        var nodes: [IPAddress?] = []
        var i = value.startIndex
        while true {
            // One forwarded-pair: token "=" value.
            while i < value.endIndex, isOWS(value[i]) { i += 1 }
            if i == value.endIndex { break }
            let nameStart = i
            while i < value.endIndex, isTChar(value[i]) { i += 1 }
            guard i > nameStart, i < value.endIndex, value[i] == UInt8(ascii: "=") else { return nil }
            let name = value[nameStart..<i]
            i += 1
            var text: [UInt8] = []
            if i < value.endIndex, value[i] == UInt8(ascii: "\"") {
                i += 1
                var closed = false
                while i < value.endIndex {
                    let b = value[i]
                    i += 1
                    if b == UInt8(ascii: "\"") { closed = true; break }
                    if b == UInt8(ascii: "\\") {
                        guard i < value.endIndex else { return nil }
                        text.append(value[i])
                        i += 1
                    } else {
                        guard b == 0x09 || (b >= 0x20 && b != 0x7F) else { return nil }
                        text.append(b)
                    }
                }
                guard closed else { return nil }
            } else {
                // A token; brackets and colons are let through (`for=[2001:db8::1]`
                // unquoted is common, and its node is checked below all the same).
                let start = i
                while i < value.endIndex, isTChar(value[i]) || value[i] == UInt8(ascii: ":")
                    || value[i] == UInt8(ascii: "[") || value[i] == UInt8(ascii: "]") { i += 1 }
                text = Array(value[start..<i])
            }
            if ASCIIHex.equalsIgnoringCase(name, "for") {
                guard let node = forwardedNode(text[...]) else { return nil }
                nodes.append(node)
            }
            while i < value.endIndex, isOWS(value[i]) { i += 1 }
            if i == value.endIndex { break }
            guard value[i] == UInt8(ascii: ";") || value[i] == UInt8(ascii: ",") else { return nil }
            i += 1
        }
        return nodes
    }

    /// RFC 7239 6: an address node (`192.0.2.1`, `[2001:db8::1]`, either with `:port`),
    /// `unknown` or an obfuscated `_identifier` (both `.some(nil)`); nil when malformed.
    private static func forwardedNode(_ text: ArraySlice<UInt8>) -> IPAddress?? {
        if let address = node(text) { return .some(address) }
        if ASCIIHex.equalsIgnoringCase(text, "unknown") { return .some(nil) }
        let name = text.prefix { $0 != UInt8(ascii: ":") }
        if name.first == UInt8(ascii: "_"), name.count > 1,
           name.dropFirst().allSatisfy({ isAlphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }) {
            return .some(nil)
        }
        return nil
    }

    /// An address, bracketed or not, with an optional port.
    static func node(_ text: ArraySlice<UInt8>) -> IPAddress? {
        if text.first == UInt8(ascii: "[") {
            guard let close = text.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            guard isPort(text[(close + 1)...]) else { return nil }
            let inner = text[(text.startIndex + 1)..<close]
            guard inner.contains(UInt8(ascii: ":")) else { return nil }
            return IPAddress(bytes: inner)
        }
        if let address = IPAddress(bytes: text) { return address }
        // IPv4 with a port: one colon.
        guard let colon = text.firstIndex(of: UInt8(ascii: ":")), !text[(colon + 1)...].contains(UInt8(ascii: ":")),
              isPort(text[colon...]) else { return nil }
        let v4 = text[..<colon]
        guard !v4.contains(UInt8(ascii: ":")), let bits = IPAddress.parseIPv4(v4) else { return nil }
        return IPAddress(ipv4: bits)
    }

    /// Empty, or `:` and 1 to 5 digits (RFC 7239 also allows an obfuscated port).
    private static func isPort(_ text: ArraySlice<UInt8>) -> Bool {
        guard let first = text.first else { return true }
        guard first == UInt8(ascii: ":") else { return false }
        let port = text.dropFirst()
        if port.first == UInt8(ascii: "_") { return port.count > 1 && port.dropFirst().allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") } }
        return !port.isEmpty && port.count <= 5 && port.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    private static func isOWS(_ b: UInt8) -> Bool { b == UInt8(ascii: " ") || b == 0x09 }

    private static func isAlphanumeric(_ b: UInt8) -> Bool {
        (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || (b | 0x20 >= UInt8(ascii: "a") && b | 0x20 <= UInt8(ascii: "z"))
    }

    /// RFC 9110 5.6.2 tchar.
    private static func isTChar(_ b: UInt8) -> Bool {
        if isAlphanumeric(b) { return true }
        switch b {
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
             UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
             UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"): return true
        default: return false
        }
    }

    private static func trimOWS(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var bytes = bytes
        while let first = bytes.first, isOWS(first) { bytes.removeFirst() }
        while let last = bytes.last, isOWS(last) { bytes.removeLast() }
        return bytes
    }
}

extension ASCIIHex {
    /// Whether `bytes` spell `lowercase` without regard to ASCII case.
    static func equalsIgnoringCase(_ bytes: some Collection<UInt8>, _ lowercase: StaticString) -> Bool {
        lowercase.withUTF8Buffer { expected in
            bytes.count == expected.count && zip(bytes, expected).allSatisfy { $0 | 0x20 == $1 }
        }
    }
}

extension String {
    func trimmingASCIISpaces() -> String {
        let bytes = utf8.drop { $0 == UInt8(ascii: " ") }.reversed().drop { $0 == UInt8(ascii: " ") }.reversed()
        return String(decoding: Array(bytes), as: UTF8.self)
    }
}
