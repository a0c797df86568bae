import Testing
@testable import MicroHTTPD
@testable import SwitchboardServer

/// If-None-Match per RFC 9110 13.1.2: `*` or a list of entity tags, compared weakly.
@Suite struct EntityTagTests {
    static let etag = "\"sha256-abc\""

    @Test(arguments: [
        ("\"sha256-abc\"", true),
        ("W/\"sha256-abc\"", true),
        ("*", true),
        (" * ", true),
        ("\"other\", \"sha256-abc\"", true),
        ("\"other\",W/\"sha256-abc\"\t", true),
        ("\"other\" ,  \"sha256-abc\" , \"x\"", true),
        ("\"sha256-ab\"", false),
        ("\"sha256-abcd\"", false),
        ("sha256-abc", false),
        ("\"other\"", false),
        ("", false),
        (",,,", false),
        ("W/", false),
        ("**", false),
        ("\"sha256-abc\"x", false),
        ("w/\"sha256-abc\"", false),
    ] as [(String, Bool)])
    func ifNoneMatchComparesWeakly(_ header: String, _ expected: Bool) {
        #expect(SwitchboardAPI.matches(header, Self.etag) == expected, "\(header)")
    }

    @Test func aWeakServerTagMatchesItsStrongForm() {
        #expect(SwitchboardAPI.matches("\"v1\"", "W/\"v1\""))
        #expect(SwitchboardAPI.matches("W/\"v1\"", "W/\"v1\""))
        #expect(!SwitchboardAPI.matches("\"v2\"", "W/\"v1\""))
    }
}

@Suite struct HeaderNameTests {
    @Test(arguments: [
        ("if-none-match", "If-None-Match", true), ("ACCEPT-ENCODING", "accept-encoding", true), ("a", "a", true),
        ("if-none-match", "If-None-Matc", false), ("if-none-match", "If-None_Match", false), ("@", "`", false),
        ("[", "{", false), ("é", "É", false), ("", "", true),
    ] as [(String, String, Bool)])
    func namesCompareWithoutASCIICase(_ a: String, _ b: String, _ expected: Bool) {
        #expect(HTTPRequest.equalsIgnoringASCIICase(a, b) == expected)
    }
}

/// Accept-Encoding per RFC 9110 12.5.3: gzip when it (or `*`) is listed with q > 0.
@Suite struct AcceptEncodingTests {
    @Test(arguments: [
        ("gzip", true), ("GZip", true), ("x-gzip", true), ("gzip, deflate, br", true), ("br,gzip", true),
        (" gzip ; q=1 ", true), ("gzip;q=0.5", true), ("gzip;q=0", false), ("gzip;Q=0", false), ("gzip;q=0.000", false),
        ("deflate, gzip;q=0", false), ("*", true), ("*;q=0", false), ("*, gzip;q=0", false), ("gzip;q=0, *", false),
        ("deflate, *;q=0.1", true), ("deflate", false), ("identity", false), ("", false), (",,", false),
        ("gzip;q=abc", true), ("gzip;level=9;q=0", false), ("gzipx", false), ("x-gzip;q=0, gzip", false),
    ] as [(String, Bool)])
    func gzipWhenListedWithNonZeroQuality(_ header: String, _ expected: Bool) {
        #expect(SwitchboardAPI.acceptsGzip(header) == expected, "\(header)")
    }

    @Test func noHeaderMeansNoGzip() {
        #expect(!SwitchboardAPI.acceptsGzip(nil))
    }
}
