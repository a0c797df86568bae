import Testing
@testable import RouteMatching

struct URLScopeTests {
    let scope = URLScope(hosts: ["artsy.net", "staging.artsy.net", "localhost:8080", "xn--bcher-kva.example"], schemes: ["artsy", "Ex"])

    func segments(_ url: String) -> [String]? {
        if case .internal(let u) = scope.classify(url) { return u.segments }
        return nil
    }

    func host(_ url: String) -> String?? {
        if case .internal(let u) = scope.classify(url) { return .some(u.host) }
        return nil
    }

    @Test(arguments: [
        ("https://artsy.net/artwork/x", ["artwork", "x"]),
        ("https://www.artsy.net/artwork/x", ["artwork", "x"]),
        ("HTTPS://ARTSY.NET./artwork/x", ["artwork", "x"]),
        ("http://artsy.net:80/a", ["a"]),
        ("https://artsy.net:443/a", ["a"]),
        ("https://artsy.net:0443/a", ["a"]),
        ("artsy://artwork/x", ["artwork", "x"]),
        ("artsy:/artwork/x", ["artwork", "x"]),
        ("artsy:///artwork/x", ["artwork", "x"]),
        ("ARTSY://artwork/x", ["artwork", "x"]),
        ("ex:artist/x", ["artist", "x"]),
        ("artsy://Artwork/x", ["Artwork", "x"]),
        ("/artist/x", ["artist", "x"]),
        ("artist/x", ["artist", "x"]),
        ("", []),
        ("/", []),
        ("//", []),
        ("//?q", []),
        ("//#f", []),
        ("/a//b/", ["a", "b"]),
        ("/a/./b/../c", ["a", "c"]),
        ("/a/%2E%2e/b", ["b"]),
        ("/a/%2e/b", ["a", "b"]),
        ("/a/..%2F../b", ["a", "../..", "b"]),
        ("/artist/a%2Fb", ["artist", "a/b"]),
        ("/artwork/%2541", ["artwork", "%41"]),
        ("/%61bout", ["about"]),
        ("/a+b", ["a+b"]),
        ("/a%3Fb%26c", ["a?b&c"]),
        ("/caf%C3%A9", ["café"]),
        ("/a/%00b", ["a", "\u{0}b"]),
        ("java%73cript:x", ["javascript:x"]),
        ("/../../x", ["x"]),
        ("https://localhost:8080/a", ["a"]),
        ("//artsy.net/x", ["x"]),
    ] as [(String, [String])])
    func normalizesInternalURLs(_ url: String, _ expected: [String]) {
        #expect(segments(url) == expected, "\(url)")
    }

    @Test(arguments: [
        ("https://evil.com\\@artsy.net/", URLRejection.backslash),
        ("https://artsy.net@evil.com/", .userinfo),
        ("//artsy.net@evil.com/", .userinfo),
        ("https://user:pw@artsy.net/", .userinfo),
        ("/a b", .whitespace),
        ("/a\u{00A0}b", .whitespace),
        ("/a\tb", .controlCharacter),
        ("/a\u{7F}", .controlCharacter),
        ("/a\u{85}", .controlCharacter),
        ("/a%zz", .invalidPercentEncoding),
        ("/a%4", .invalidPercentEncoding),
        ("/a%", .invalidPercentEncoding),
        ("/a%FF", .invalidUTF8),
        ("/a?x=%C3", .invalidUTF8),
        ("/a#%FF", .invalidUTF8),
        ("javascript:alert(1)", .unsafeScheme),
        ("JavaScript:alert(1)", .unsafeScheme),
        ("data:text/html,x", .unsafeScheme),
        ("vbscript:x", .unsafeScheme),
        ("file:///etc/passwd", .unsafeScheme),
        ("///evil.com/x", .ambiguousSlashes),
        ("https:///x", .ambiguousSlashes),
        ("https://", .missingHost),
        ("https:artsy.net/x", .missingHost),
        ("https://art%73y.net/", .invalidHost),
        ("https://artsy.net:99999/", .invalidPort),
        ("https://artsy.net:8x/", .invalidPort),
        ("https://ar<tsy.net/", .invalidHost),
    ] as [(String, URLRejection)])
    func rejects(_ url: String, _ reason: URLRejection) {
        #expect(scope.classify(url) == .rejected(reason), "\(url)")
    }

    /// A manifest with few hosts has hosts written the common way compared on their bytes;
    /// one with many has every host normalized by `HostName.key`. Both must classify alike.
    @Test func fewHostsByteComparisonAgreesWithHostNormalization() {
        let listed: Set<String> = ["artsy.net", "m.artsy.net", "a-b.example", "localhost:8080", "10.0.0.1"]
        let few = URLScope(hosts: listed, schemes: [])
        let many = URLScope(hosts: listed.union((1...9).map { "other\($0).example" }), schemes: [])
        let hosts = ["artsy.net", "www.artsy.net", "artsy.net.", "artsy.net..", "www.artsy.net.", "www.www.artsy.net", "wwwartsy.net",
                     "www.", "www..artsy.net", ".artsy.net", "...", "m.artsy.net", "www.m.artsy.net", "ARTSY.net", "WWW.artsy.net",
                     "a-b.example", "a_b.example", "artsy.net:80", "artsy.net:", "localhost:8080", "localhost", "10.0.0.1",
                     "www.10.0.0.1", "artsy.ne", "artsy.nett", "evil.com", "xn--artsy.net", "artsy.net~"]
        for host in hosts {
            for scheme in ["https://", "http://", "//"] {
                let url = scheme + host + "/artwork/x"
                #expect(few.classify(url) == many.classify(url), "\(url)")
            }
        }
    }

    /// Likewise schemes: a few are compared on their bytes, many looked up as Strings.
    @Test func fewSchemesByteComparisonAgreesWithTheSchemeSet() {
        let listed: Set<String> = ["artsy", "Ex", "my-app+x.1"]
        let few = URLScope(hosts: [], schemes: listed)
        let many = URLScope(hosts: [], schemes: listed.union((1...9).map { "other\($0)" }))
        let schemes = ["artsy", "ARTSY", "Artsy", "art", "artsyy", "ex", "EX", "e", "my-app+x.1", "MY-APP+X.1", "my-app+x.2",
                       "javascript", "JavaScript", "DATA", "vbScript", "file", "files", "mailto", "x"]
        for scheme in schemes {
            for rest in [":/artwork/x", "://artwork/x", ":x"] {
                let url = scheme + rest
                #expect(few.classify(url) == many.classify(url), "\(url)")
            }
        }
        #expect(few.classify("ARTSY://artwork/x") == .internal(InternalURL(host: nil, segments: ["artwork", "x"])))
        #expect(few.classify("JavaScript:x") == .rejected(.unsafeScheme))
        #expect(few.classify("artsyy:x") == .external)
    }

    @Test func rejectsOverLongInputAtTheLimit() {
        let ok = "/" + String(repeating: "a", count: URLScope.maxLength - 1)
        #expect(segments(ok) != nil)
        #expect(scope.classify(ok + "a") == .rejected(.tooLong))
    }

    @Test func rejectsRawBytesThatAreNotUTF8() {
        #expect(scope.classify([UInt8(ascii: "/"), 0xFF]) == .rejected(.invalidUTF8))
    }

    @Test(arguments: [
        "https://evil.com/artsy.net", "https://artsy.net.evil.com/", "mailto:x@artsy.net", "tel:+123",
        "http://artsy.net:8080/x", "https://localhost/x", "//evil.com/x", "intent://x", "ftp://artsy.net/",
        "https://[::1]/x",
    ])
    func classifiesOtherURLsAsExternal(_ url: String) {
        #expect(scope.classify(url) == .external, "\(url)")
    }

    @Test func appSchemeAndPathURLsHaveNoHost() {
        #expect(host("artsy://artwork/x") == .some(nil))
        #expect(host("/artwork/x") == .some(nil))
        #expect(host("https://www.artsy.net/x") == .some("artsy.net"))
        #expect(host("https://localhost:8080/x") == .some("localhost:8080"))
    }

    @Test func internationalizedHostsGoThroughIDNA() {
        #expect(host("https://bücher.example/x") == .some("xn--bcher-kva.example"))
        #expect(host("https://BÜCHER.example/x") == .some("xn--bcher-kva.example"))
        #expect(host("https://ａｒｔｓｙ.net/x") == .some("artsy.net"))
    }

    @Test func parsesQueryAsFormEncoding() throws {
        guard case .internal(let u) = scope.classify("/s?q=a+b%20c&flag&empty=&&=skipped&k=v=w&r=1&r=2&%6Bey=1#fr%20ag+x") else {
            Issue.record("not internal")
            return
        }
        #expect(u.query.map(\.key) == ["q", "flag", "empty", "k", "r", "r", "key"])
        #expect(u.query.map(\.value) == ["a b c", "", "", "v=w", "1", "2", "1"])
        #expect(u.fragment == "fr ag+x")
    }

    @Test func fragmentIsPresentWheneverTheURLHasHash() {
        guard case .internal(let u) = scope.classify("/a#") else { Issue.record("not internal"); return }
        #expect(u.fragment == "")
        guard case .internal(let v) = scope.classify("/a") else { Issue.record("not internal"); return }
        #expect(v.fragment == nil)
    }
}

struct NormalizedPathTests {
    let scope = URLScope(hosts: ["artsy.net"], schemes: ["artsy"])

    @Test(arguments: ["arts=tst/%2e%3FFFx", "/a%23b/c%20d", "/%00x/%0A", "/a%5Cb", "/caf%C3%A9/%C2%85", "/a%2Fb/%25", "/%E2%80%A8"])
    func normalizedPathsReadBackAsTheSameSegments(_ input: String) throws {
        guard case .internal(let url) = scope.classify(input) else { Issue.record("not internal: \(input)"); return }
        guard case .internal(let again) = scope.classify(url.path) else { Issue.record("path \(url.path) not internal"); return }
        #expect(again.segments == url.segments, "\(input) -> \(url.path)")
    }
}
