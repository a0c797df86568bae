import Testing
@testable import MicroHTTPD

/// Who the client of a request is behind a trusted proxy: the rightmost untrusted address
/// of the one header the proxy writes (`X-Forwarded-For`, or RFC 7239's `Forwarded` when
/// configured so), else the peer.
struct TrustedProxiesTests {
    static let proxies = TrustedProxies([range("127.0.0.1/32"), range("10.0.0.0/8"), range("fd00::/8")])
    static let peer = IPAddress(ipv4: 0x0A01_0203)

    /// An address or range written in the test (`::` or `::/128` if it does not parse,
    /// which fails the expectation that reads it, not the whole run).
    static func ip(_ text: String) -> IPAddress { IPAddress(text) ?? .unspecified }
    func ip(_ text: String) -> IPAddress { Self.ip(text) }
    static func range(_ text: String) -> AddressRange { AddressRange(text) ?? AddressRange("::/128")! }
    func range(_ text: String) -> AddressRange { Self.range(text) }

    /// The client named by `xff` (X-Forwarded-For, the default header) or, when given,
    /// `forwarded` (the proxies configured with `--forwarded-header forwarded`).
    func client(forwarded: String? = nil, xff: String? = nil, proxies: TrustedProxies = Self.proxies) -> String {
        if let forwarded {
            let reading = TrustedProxies(proxies.ranges, header: .forwarded)
            return (reading.forwardedClient(ArraySlice(forwarded.utf8)) ?? Self.peer).description
        }
        guard let xff else { return Self.peer.description }
        return (proxies.forwardedClient(ArraySlice(xff.utf8)) ?? Self.peer).description
    }

    @Test func addressesParseAndPrintAsRFC5952Says() {
        let cases: [(String, String?)] = [
            ("192.0.2.1", "192.0.2.1"), ("0.0.0.0", "0.0.0.0"), ("255.255.255.255", "255.255.255.255"),
            ("2001:DB8::1", "2001:db8::1"), ("2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"), ("::", "::"), ("::1", "::1"),
            ("1::", "1::"), ("::ffff:192.0.2.1", "192.0.2.1"), ("64:ff9b::192.0.2.33", "64:ff9b::c000:221"),
            ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2:3:4:5:6"), ("2001:0:0:1:0:0:0:1", "2001:0:0:1::1"),
            // Refused: leading zeros, too many parts or groups, two gaps, a zone, a port, junk.
            ("192.0.2.01", nil), ("192.0.2", nil), ("192.0.2.1.5", nil), ("256.0.0.1", nil), ("1.2.3.4 ", nil),
            ("1::2::3", nil), ("1:2:3:4:5:6:7:8:9", nil), ("1::2:3:4:5:6:7:8", nil), ("fe80::1%eth0", nil),
            ("12345::", nil), (":1", nil), ("1:", nil), (":::", nil), ("", nil), ("localhost", nil), ("::1.2.3", nil),
        ]
        for (text, expected) in cases {
            #expect(IPAddress(text)?.description == expected, "\(text)")
        }
    }

    @Test func blocksAreA24OrA64() {
        #expect(ip("192.0.2.77").block == ip("192.0.2.1").block)
        #expect(ip("192.0.3.1").block != ip("192.0.2.1").block)
        #expect(ip("2001:db8:0:1::5").block == ip("2001:db8:0:1:ffff::").block)
        #expect(ip("2001:db8:0:2::5").block != ip("2001:db8:0:1::5").block)
        #expect(ip("192.0.2.77").block.description == "192.0.2.0/24")
        #expect(ip("2001:db8:0:1::5").block.description == "2001:db8:0:1::/64")
    }

    @Test func rangesHoldWhatTheirPrefixSays() throws {
        let any4 = try #require(AddressRange("0.0.0.0/0"))
        #expect(AddressRange("::ffff:0:0/96")?.description == "0.0.0.0/0")
        #expect(any4.contains(ip("203.0.113.9")))
        #expect(!any4.contains(ip("2001:db8::1")), "an IPv4 range holds IPv4 addresses only")
        #expect(range("::/0").contains(ip("2001:db8::1")))
        #expect(range("10.1.2.3/8").description == "10.0.0.0/8")
        #expect(range("10.0.0.0/8").contains(ip("10.255.0.1")))
        #expect(!range("10.0.0.0/8").contains(ip("11.0.0.1")))
        #expect(range("192.0.2.1").contains(ip("192.0.2.1")))
        #expect(!range("192.0.2.1").contains(ip("192.0.2.2")))
        #expect(range("2001:db8::/32").contains(ip("2001:db8:ffff::1")))
        #expect(!range("2001:db8::/33").contains(ip("2001:db8:ffff::1")))
        #expect(range("::ffff:0:0/96").contains(ip("192.0.2.1")))
        for bad in ["10.0.0.0/33", "::/129", "10.0.0.0/", "10.0.0.0/-1", "10.0.0.0/8/8", "example.com/8", "10.0.0.0/ 8", ""] {
            #expect(AddressRange(bad) == nil, "\(bad)")
        }
        #expect(throws: TrustedProxies.InvalidRange(text: "10.0.0/8")) { try TrustedProxies(parsing: ["10.0.0.0/8", "10.0.0/8"]) }
    }

    /// Trusting every address trusts what the client wrote of itself: refused, with the
    /// way out in the message.
    @Test func aRangeOfEveryAddressIsRefused() throws {
        for everything in ["0.0.0.0/0", "::/0", "::ffff:0:0/96", "::/64", "0.0.0.0/0 "] {
            #expect(throws: TrustedProxies.InvalidRange(text: everything, coversEveryAddress: true), "\(everything)") {
                try TrustedProxies(parsing: ["10.0.0.0/8", everything])
            }
        }
        let message = TrustedProxies.InvalidRange(text: "0.0.0.0/0", coversEveryAddress: true).description
        #expect(message.contains("pod range") && message.contains("proxy's addresses"))
        // Wide, but not everything: accepted.
        for wide in ["0.0.0.0/1", "128.0.0.0/1", "::ffff:0:0/97", "2000::/3", "fc00::/7"] {
            #expect(throws: Never.self) { try TrustedProxies(parsing: [wide]) }
        }
    }

    @Test func xForwardedForIsReadFromTheRightPastTrustedAddresses() {
        #expect(client(xff: "203.0.113.9") == "203.0.113.9")
        // What the client said of itself (left) is passed over for what the proxy saw.
        #expect(client(xff: "198.51.100.1, 203.0.113.9") == "203.0.113.9")
        // A chain of trusted proxies: the rightmost address not trusted.
        #expect(client(xff: "198.51.100.1, 203.0.113.9, 10.0.0.5, 127.0.0.1") == "203.0.113.9")
        // Every address trusted: the one the nearest proxy appended, never one further left,
        // which the client could have written (a client in the pod range naming another).
        #expect(client(xff: "10.0.0.7, 10.0.0.5") == "10.0.0.5")
        #expect(client(xff: "10.9.9.9, 10.0.0.7, 127.0.0.1") == "127.0.0.1")
        // IPv6, bracketed or not, with ports; spaces and tabs around entries; empty entries.
        #expect(client(xff: "2001:db8::7") == "2001:db8::7")
        #expect(client(xff: "[2001:db8::7]:4711") == "2001:db8::7")
        #expect(client(xff: "192.0.2.4:51234") == "192.0.2.4")
        #expect(client(xff: " \t203.0.113.9 ,, fd00::1 ") == "203.0.113.9")
        // Several lines are one list, in order.
        #expect(client(xff: "198.51.100.1,203.0.113.9") == "203.0.113.9")
        // Malformed where the walk reads: the peer.
        #expect(client(xff: "not-an-address") == "10.1.2.3")
        #expect(client(xff: "203.0.113.9, garbage") == "10.1.2.3")
        #expect(client(xff: "[2001:db8::7") == "10.1.2.3")
        #expect(client(xff: "192.0.2.4:99999999") == "10.1.2.3")
        // Garbage left of the client is what the client said: not read.
        #expect(client(xff: "<script>, 203.0.113.9") == "203.0.113.9")
        #expect(client(xff: "") == "10.1.2.3")
    }

    /// Header values are anyone's bytes: 200,000 made at random from the characters that
    /// matter (and any byte) never trap; some of them name an address.
    @Test func anyBytesNameThePeerOrAnAddressWithoutTrapping() {
        let alphabet = Array("0123456789abcdefABCDEF:.[]\"\\;,= _-forFORunknown\t\u{7F}".utf8) + [0, 0xFF, 0x0D, 0x0A]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        var named = 0
        for _ in 0..<200_000 {
            let length = Int(next() % 40)
            let bytes = (0..<length).map { _ in alphabet[Int(next() % UInt64(alphabet.count))] }
            let asForwarded = TrustedProxies(Self.proxies.ranges, header: .forwarded).forwardedClient(bytes[...]) ?? Self.peer
            let asList = Self.proxies.forwardedClient(bytes[...]) ?? Self.peer
            if asForwarded != Self.peer || asList != Self.peer { named += 1 }
        }
        #expect(named > 0, "some random values name an address")
    }

    @Test func forwardedIsReadAsRFC7239SaysWhenItIsTheHeader() {
        #expect(client(forwarded: "for=192.0.2.60;proto=http;by=203.0.113.43") == "192.0.2.60")
        #expect(client(forwarded: #"For="[2001:db8:cafe::17]:4711""#) == "2001:db8:cafe::17")
        #expect(client(forwarded: #"for="192.0.2.43:47011""#) == "192.0.2.43")
        #expect(client(forwarded: "for=192.0.2.43, for=198.51.100.17") == "198.51.100.17")
        #expect(client(forwarded: "for=192.0.2.43, for=10.0.0.1") == "192.0.2.43", "the proxy's own element is passed over")
        #expect(client(forwarded: #"for=192.0.2.43;by="\_x", for="[fd00::3]""#) == "192.0.2.43")
        #expect(client(forwarded: "for=10.0.0.9, for=10.0.0.1") == "10.0.0.1", "all trusted: the nearest proxy's")
        // Unquoted brackets, as some proxies send.
        #expect(client(forwarded: "for=[2001:db8::1]") == "2001:db8::1")
        // No address to count by: the peer.
        #expect(client(forwarded: "for=unknown") == "10.1.2.3")
        #expect(client(forwarded: "for=_hidden, for=10.0.0.1") == "10.1.2.3")
        #expect(client(forwarded: #"for="_gazonk:_port""#) == "10.1.2.3")
        // No for= at all: the peer (X-Forwarded-For is never read in its place).
        #expect(client(forwarded: "proto=https;host=example.com") == "10.1.2.3")
        // Malformed: the peer.
        for bad in ["for", "for=", "for=\"192.0.2.1", "for=192.0.2.1 garbage", "for=not_an_address", "=x", "for=192.0.2.1;;",
                    "for=[2001:db8::1", "for=\"[2001:db8::1]:port\"", "for=\u{7F}"] {
            #expect(client(forwarded: bad) == "10.1.2.3", "\(bad)")
        }
    }

    /// X-Forwarded-For is the default; a `Forwarded` value in it is no address list.
    @Test func theDefaultHeaderIsXForwardedFor() {
        #expect(Self.proxies.header == .xForwardedFor)
        #expect(client(xff: "for=192.0.2.60") == "10.1.2.3")
        #expect(ForwardedHeader(rawValue: "forwarded")?.fieldName == "Forwarded")
        #expect(ForwardedHeader(rawValue: "x-forwarded-for")?.fieldName == "X-Forwarded-For")
    }
}
