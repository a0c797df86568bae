import Testing
@testable import RouteMatching

struct SafeRegexTests {
    @Test(arguments: [
        ("[a-z]+-[0-9]{4}", "sale-2026", true),
        ("[a-z]+-[0-9]{4}", "sale-202", false),
        ("[0-9a-f]{24}", "5f1b2c3d4e5f6a7b8c9d0e1f", true),
        ("a|b|c", "b", true),
        ("a|b|c", "bc", false),
        ("(?:ab)+", "ababab", true),
        ("(?<year>\\d{4})-\\d\\d", "2026-11", true),
        ("^abc$", "abc", true),
        ("[^/]+", "a/b", false),
        (".*", "", true),
        ("x?y", "y", true),
        ("\\w+", "snake_case1", true),
        ("caf.", "café", true),
    ] as [(String, String, Bool)])
    func matchesWholeValues(_ pattern: String, _ value: String, _ expected: Bool) throws {
        #expect(try SafeRegex(pattern).matches(value) == expected)
    }

    @Test(arguments: ["(a+)+$", "(a|a)*$", "(.*a){12}", "(a*)*", "(a|ab)*c", "(x+x+)+y", "(a?)+"])
    func refusesPatternsThatBacktrackingEnginesRunSuperLinearly(_ pattern: String) {
        do {
            _ = try SafeRegex(pattern)
            Issue.record("accepted \(pattern)")
        } catch {
            guard case .unsafe = error else { Issue.record("\(pattern): \(error)"); return }
        }
    }

    @Test(arguments: ["(a)\\1", "(?=a)a", "(?!a)b", "(?<=a)b", "a{2000}", "[b-a]", "(a", "a)", "*a"])
    func refusesUnsupportedOrInvalidPatterns(_ pattern: String) {
        #expect(throws: RegexError.self) { try SafeRegex(pattern) }
    }

    @Test func runsInLinearTimeOnLongInputs() throws {
        let regex = try SafeRegex("[a-z]*b")
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            #expect(!regex.matches(String(repeating: "a", count: SafeRegex.maxInputLength)))
        }
        #expect(elapsed < .seconds(1))
        #expect(!regex.matches(String(repeating: "a", count: SafeRegex.maxInputLength + 1) + "b"))
    }
}
