import Testing
@testable import Switchboard

struct JSONTests {
    @Test func parsesAndWritesRoundTrip() throws {
        let text = #"{"a":[1,-2,3.5,true,false,null],"b":"x\"y\\z\n\u0001é😀","c":{}}"#
        let value = try JSONParser.parse(text)
        #expect(String(decoding: value.serialized(), as: UTF8.self) == #"{"a":[1,-2,3.5,true,false,null],"b":"x\"y\\z\n\u0001é😀","c":{}}"#)
        #expect(try JSONParser.parse(#""\ud83d\ude00""#) == .string("😀"))
    }

    @Test func escapesWhatJSONStringifyEscapes() {
        var w = JSONWriter()
        w.string("\"\\\u{0}\u{1F}\u{7F}\u{2028}\u{2029}\u{2030}")
        #expect(String(decoding: w.bytes, as: UTF8.self) == "\"\\\"\\\\\\u0000\\u001f\u{7F}\u{2028}\u{2029}\u{2030}\"")
        // The same text given as UTF-8 bytes is written the same, escaped or not.
        for plain in ["", "artsy://artist/é?q=1", "https://www.artsy.net/artwork/andy-warhol-soup"] {
            var w = JSONWriter()
            w.string(plain)
            #expect(w.bytes == Array("\"\(plain)\"".utf8))
        }
        for text in ["\"\\\u{0}\u{1F}\u{7F}\u{2028}\u{2029}\u{2030}", "artsy://artist/é?q=1", "https://www.artsy.net/artwork/andy-warhol-soup", "",
                     "\u{E2}\u{2028}x\u{2029}"] {
            var fromString = JSONWriter(), fromBytes = JSONWriter()
            fromString.string(text)
            fromBytes.string(validUTF8: Array(text.utf8))
            #expect(fromBytes.bytes == fromString.bytes, "\(text)")
        }
        var n = JSONWriter()
        n.integer(Int64.min)
        n.byte(UInt8(ascii: " "))
        n.integer(0)
        #expect(String(decoding: n.bytes, as: UTF8.self) == "-9223372036854775808 0")
    }

    /// Numbers and member order as JavaScript's `JSON.stringify` writes them (docs/clients.md).
    @Test func writesNumbersAndMembersAsJSONStringifyDoes() throws {
        let numbers: [(Double, String)] = [
            (1e21, "1e+21"), (1e-7, "1e-7"), (123456789012345680000, "123456789012345680000"), (0.1, "0.1"),
            (1.5e300, "1.5e+300"), (-2.5e-10, "-2.5e-10"), (1e15, "1000000000000000"), (5e-324, "5e-324"), (-0.0, "0"),
            (0.000001, "0.000001"), (123.456, "123.456"), (-1e16, "-10000000000000000"), (1.7976931348623157e308, "1.7976931348623157e+308"),
        ]
        for (value, expected) in numbers {
            var w = JSONWriter()
            w.double(value)
            #expect(String(decoding: w.bytes, as: UTF8.self) == expected, "\(value)")
        }
        let text = #"{"b":1,"2":9007199254740993,"10":[1.0,2e21],"01":1,"4294967295":1,"4294967294":1,"a":{"1":1,"z":1}}"#
        #expect(String(decoding: try JSONParser.parse(text).serialized(), as: UTF8.self)
                == #"{"2":9007199254740992,"10":[1,2e+21],"4294967294":1,"b":1,"01":1,"4294967295":1,"a":{"1":1,"z":1}}"#)
    }

    @Test(arguments: [
        ("", 0), ("{", 1), ("[1,]", 3), (#"{"a":1,"a":2}"#, 7), ("01", 1), ("[1 2]", 3), ("\"\u{1}\"", 1),
        (#""\ud800""#, 7), ("tru", 0), ("1e", 2), ("{} x", 3), (#"{"a" 1}"#, 5),
    ] as [(String, Int)])
    func reportsTheByteOffsetOfSyntaxErrors(_ text: String, _ offset: Int) {
        #expect(throws: JSONParser.Error.self) { try JSONParser.parse(text) }
        do { _ = try JSONParser.parse(text) } catch { #expect(error.offset == offset, "\(text): \(error)") }
    }

    /// Duplicates are found by a scan in small objects and a set in larger ones: both ways.
    @Test(arguments: [3, 7, 8, 9, 40])
    func refusesDuplicateKeysInObjectsOfAnySize(_ size: Int) throws {
        let members = (0..<size).map { #""k\#($0)":\#($0)"# }
        let unique = "{" + members.joined(separator: ",") + "}"
        #expect(try JSONParser.parse(unique).objectMembers?.count == size)
        for repeated in [0, size - 1] {
            let text = "{" + members.joined(separator: ",") + #","k\#(repeated)":0}"#
            #expect(throws: JSONParser.Error.self) { try JSONParser.parse(text) }
            do { _ = try JSONParser.parse(text) } catch { #expect(error.message.contains("duplicate key \"k\(repeated)\"")) }
        }
    }

    @Test func refusesDeepNestingWithoutOverflowingTheStack() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: JSONParser.Error.self) { try JSONParser.parse(deep) }
        let ok = String(repeating: "[", count: JSONParser.maxDepth) + String(repeating: "]", count: JSONParser.maxDepth)
        #expect(throws: Never.self) { try JSONParser.parse(ok) }
    }

    @Test func refusesInvalidUTF8() {
        #expect(throws: JSONParser.Error.self) { try JSONParser.parse([0x22, 0xFF, 0x22]) }
    }
}

struct SHA256Tests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    func matchesTheNISTVectors(_ input: String, _ digest: String) {
        #expect(SHA256.hex(Array(input.utf8)) == digest)
    }

    /// Lengths around the padding's edges (55/56 bytes fit one block or not, 64 is a
    /// whole block); digests from Python's hashlib.
    @Test(arguments: [
        (55, "e7313d333c272e639f790978283f9eb392e843d0f29b7016828bb1daa4aac70b"),
        (56, "4324d65f3c103567f5589c710bc08f8523f929a9272e3af36fc968e52abc6c27"),
        (63, "81c80242132f230c3bd41b3e63bbcff16107339549214a99614ff26664625055"),
        (64, "39e3d7b6b5d075d37d053ad89b24b41bef4f3c29760c84447cab3f3be1882241"),
        (65, "aacca6ff74fdbb296d165a45cecfa04e5127bc008770fbbdd48006f2d2fae95e"),
        (119, "9ce7368e4daf32341631b492e80359dc9f594b48453cd0dd5bf0b19279cc177e"),
        (120, "7836b787757e95e58b3ca5aec90b1b004e8deba1e50e9675af9cabf1a13a04b5"),
        (127, "a8d23e75d936f303d248888d9b165ee543f4cbafcad3c9dd2a79bd84faa11d07"),
        (128, "d2742f1f4ac6bb7ca2b239ee18402ba8b3f9f8e652d2a72973c2b9ba11c08cf6"),
        (129, "307f8fc2c1622b92762e818d39a185d4d667ad49a4b07ceae1f4afa008a93ec4"),
    ])
    func padsEveryLengthAroundABlock(_ length: Int, _ digest: String) {
        let message = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 7 + 3) }
        #expect(SHA256.hex(message) == digest)
    }

    @Test func hashesAMillionAs() {
        #expect(SHA256.hex([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}

struct VersionTests {
    @Test func comparesBySemverPrecedence() throws {
        let order = ["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.0.1", "1.10", "2"]
        let versions = try order.map { try #require(SemanticVersion($0)) }
        for (a, b) in zip(versions, versions.dropFirst()) { #expect(a < b, "\(a) < \(b)") }
        #expect(SemanticVersion("7.2") == SemanticVersion("7.2.0+build.5"))
        #expect(SemanticVersion("7.x") == nil)
        #expect(SemanticVersion("") == nil)
        #expect(SemanticVersion("1.2.3.4") == nil)
    }

    @Test func versionsReadFromBytesAsFromText() {
        for text in ["7.3.0", "7.2", "7", "1.0.0-beta.11", "7.2.0+build.5", "1.0.0-rc.1+b", "7.x", "", "1.2.3.4", "1..2",
                     "01.2", "7.3.0-", "7.3.0-a..b", "1234567890.0", "7.3\u{00E9}"] {
            #expect(SemanticVersion(utf8: Array(text.utf8)[...]) == SemanticVersion(text), "\(text)")
        }
        #expect(SemanticVersion(utf8: [0x37, 0x2E, 0xFF][...]) == nil)
    }

    @Test func rangesHoldWhenEveryComparatorDoes() throws {
        let range = try #require(VersionRange(parsing: ">=7.2.0 <8.0.0"))
        #expect(range.contains(SemanticVersion("7.2")!))
        #expect(!range.contains(SemanticVersion("8.0.0")!))
        #expect(range.contains(SemanticVersion("8.0.0-beta")!))
        #expect(VersionRange(parsing: ">=8 <7")!.isEmpty)
        #expect(VersionRange(parsing: ">7 <=7")!.isEmpty)
        #expect(!VersionRange(parsing: ">=7 <=7")!.isEmpty)
        #expect(VersionRange(parsing: "~7") == nil)
    }

    @Test func parsesRFC3339() {
        #expect(RFC3339.epochSeconds("1970-01-01T00:00:00Z") == 0)
        #expect(RFC3339.epochSeconds("2026-11-20T10:00:00Z") == 1_795_168_800)
        #expect(RFC3339.epochSeconds("2026-11-20T11:00:00.250+01:00") == 1_795_168_800)
        #expect(RFC3339.epochSeconds("2026-02-30T10:00:00Z") == nil)
        #expect(RFC3339.epochSeconds("2026-11-20 10:00:00") == nil)
    }
}

struct SemanticVersionParsingTests {
    @Test(arguments: [
        ("7", "7.0.0"), ("7.2", "7.2.0"), ("7.2.1", "7.2.1"), ("1.0.0-beta.1", "1.0.0-beta.1"),
        ("1.0.0+build.5", "1.0.0"), ("1.0.0-rc.1+build", "1.0.0-rc.1"), ("007.2", "7.2.0"),
    ])
    func parses(_ text: String, _ expected: String) throws {
        #expect(try #require(SemanticVersion(text)).description == expected)
    }

    @Test(arguments: ["", ".", "7.", ".7", "7..2", "1.2.3.4", "1.0.0-", "1.0.0+", "1.0.0-a+", "1.0.0-a..b", "v1.0", "1.0 ", "1.0.0-é",
                      "1234567890.0.0", "-1", "+1", "1.0.0-+b"])
    func refuses(_ text: String) {
        #expect(SemanticVersion(text) == nil, "\(text)")
    }
}

struct SourceMapTests {
    /// Line and column of `offset` counted the slow, obvious way.
    static func reference(_ bytes: [UInt8], _ offset: Int) -> SourcePosition {
        let before = bytes[..<offset]
        let lineStart = before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
        return SourcePosition(line: before.count { $0 == UInt8(ascii: "\n") } + 1,
                                  column: bytes[lineStart..<offset].count { $0 & 0xC0 != 0x80 } + 1)
    }

    /// Documents minified and pretty, with multi-byte characters before values and
    /// values past many 64-byte blocks of one line: every route's position and every
    /// field's agree with the reference.
    @Test(arguments: [false, true])
    func placesEveryPointerWhereTheReferenceDoes(pretty: Bool) throws {
        let routes = (0..<300).map { i in
            "{\"name\":\"é\(String(repeating: "😀", count: i % 7))\(i)\",\"pattern\":\"/a\(i)\",\"destination\":\"D\"}"
        }
        let text = "{\"version\":1,\"routes\":[" + routes.joined(separator: pretty ? ",\n  " : ",") + "]}"
        let bytes = Array(text.utf8)
        let (document, map) = try JSONParser.parseWithSourceMap(bytes)
        let starts = bytes.indices.filter { bytes[$0] == UInt8(ascii: "{") }.dropFirst()
        #expect(map.positions(ofItemsOf: "/routes", in: document) == starts.map { Self.reference(bytes, $0) })
        let pointers = (0..<300).reversed().flatMap { ["/routes/\($0)/destination", "/routes/\($0)/missing"] }
        let found = map.positions(of: pointers, in: document)
        for (pointer, position) in zip(pointers, found) {
            let route = Int(pointer.split(separator: "/")[1])!
            let start = starts[starts.startIndex + route]
            let offset = pointer.hasSuffix("missing") ? start
                : start + Array(routes[route].utf8).indices.first { Array(routes[route].utf8)[$0...].starts(with: Array("\"D\"".utf8)) }!
            #expect(position == Self.reference(bytes, offset), "\(pointer)")
            #expect(map.position(of: pointer, in: document) == position)
        }
        for offset in [0, 1, 63, 64, 65, bytes.count - 1, bytes.count] {
            #expect(map.position(ofByte: offset) == Self.reference(bytes, offset))
            #expect(SourceMap.position(ofByte: offset, in: bytes) == Self.reference(bytes, offset))
        }
    }
}
