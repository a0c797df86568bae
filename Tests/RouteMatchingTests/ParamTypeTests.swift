import Testing
@testable import RouteMatching

struct ParamTypeTests {
    @Test func intAcceptsSafeIntegersOnly() {
        #expect(ParamType.intValue("42") == 42)
        #expect(ParamType.intValue("-7") == -7)
        #expect(ParamType.intValue("9007199254740991") == 9_007_199_254_740_991)
        #expect(ParamType.intValue("9007199254740992") == nil)
        #expect(ParamType.intValue("-9007199254740992") == nil)
        #expect(ParamType.intValue("1e3") == nil)
        #expect(ParamType.intValue("") == nil)
        #expect(ParamType.intValue("-") == nil)
        #expect(ParamType.intValue("+1") == nil)
    }

    @Test func uuidAndSlug() {
        #expect(ParamType.uuid.accepts("123E4567-e89b-12d3-a456-426614174000"))
        #expect(!ParamType.uuid.accepts("123e4567e89b12d3a456426614174000"))
        #expect(ParamType.slug.accepts("andy-warhol_1"))
        #expect(!ParamType.slug.accepts("a.b"))
        #expect(!ParamType.enumeration(["Works"]).accepts("works"))
    }

    /// The byte masks say what the classes spell, for every byte.
    @Test func everyByteIsClassedAsItsDefinitionSays() {
        for b in UInt8.min...UInt8.max {
            let digit = b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")
            let lower = b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z"), upper = b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z")
            let hexLetter = (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "f")) || (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "F"))
            #expect(ParamType.isSlugByte(b) == (digit || lower || upper || b == UInt8(ascii: "_") || b == UInt8(ascii: "-")), "\(b)")
            #expect(ParamType.isHexDigit(b) == (digit || hexLetter), "\(b)")
        }
    }

    /// Text and bytes agree, and `enum` compares exactly: "é" precomposed is not "e" + U+0301.
    @Test(arguments: [
        (ParamType.int, "-42", true), (.int, "4.2", false), (.uuid, "123e4567-e89b-12d3-a456-426614174000", true),
        (.uuid, "123e4567-e89b-12d3-a456-42661417400", false), (.slug, "a_b-1", true), (.slug, "", false),
        (.enumeration(["caf\u{E9}"]), "caf\u{E9}", true), (.enumeration(["caf\u{E9}"]), "cafe\u{301}", false),
        (.string, "", true),
    ] as [(ParamType, String, Bool)])
    func acceptsTextAndBytesAlike(_ type: ParamType, _ value: String, _ accepted: Bool) {
        #expect(type.accepts(value) == accepted)
        #expect(type.accepts(Array(value.utf8)[...]) == accepted)
    }

    @Test func disjointness() throws {
        #expect(ParamType.int.isDisjoint(from: .uuid))
        #expect(!ParamType.int.isDisjoint(from: .slug))
        #expect(ParamType.enumeration(["a"]).isDisjoint(from: .enumeration(["b"])))
        #expect(ParamType.enumeration(["a-b"]).isDisjoint(from: .int))
        #expect(!ParamType.enumeration(["12"]).isDisjoint(from: .int))
        #expect(!ParamType.regex(try SafeRegex("[0-9]+")).isDisjoint(from: .uuid))
    }
}
