import Testing
@testable import Switchboard

/// Manifests built to make the checks blow up: many routes of one pattern with 8 optional
/// groups, many distinct kinds of one shape, near-duplicate regexes, long redirect chains.
/// Each is checked in linear work and reported once per pattern, and no list of problems
/// grows past ``ManifestDiagnostic/maxListed``.
struct ValidationBoundsTests {
    static let eightGroups = "/p" + (0..<8).map { "(/:v\($0))" }.joined()

    @Test func routesOfOnePatternWithEightGroupsAreEachReportedOnce() {
        let routes = (0..<10).map { #"{"name": "r\#($0)", "pattern": "\#(Self.eightGroups)", "destination": "S"}"# }
        let problems = Fixtures.problems(routes)
        // Each later route is a duplicate of the first, once, with the pairs of its 256
        // expansions counted: same-shape pairs of two such patterns are C(16, 8) = 12,870.
        #expect(problems.map(\.code) == Array(repeating: "duplicate", count: 9))
        #expect(problems.map(\.pointer) == (1..<10).map { "/routes/\($0)/pattern" })
        for (k, problem) in zip(1..., problems) {
            #expect(problem.message.contains(#""r0""#) && problem.message.contains(#""r\#(k)""#), "\(problem.message)")
            #expect(problem.message.contains("(\(k * 12_870 - 1) more pairs of expansions conflict the same way)"), "\(problem.message)")
        }
    }

    @Test func aProblemInEveryRouteIsListedUpToTheCap() {
        let routes = (0..<1_500).map { #"{"name": "r\#($0)", "pattern": "/x/:a", "destination": "S"}"# }
        let problems = Fixtures.problems(routes)
        #expect(problems.count == ManifestDiagnostic.maxListed + 1)
        #expect(problems.prefix(ManifestDiagnostic.maxListed).allSatisfy { $0.code == "duplicate" })
        let more = problems.last
        #expect(more?.code == "more-problems" && more?.severity == .error)
        #expect(more?.message == "499 more problems not listed: at most 1000 are")
        // Counted as what they stand for wherever errors are counted.
        #expect(ManifestError(diagnostics: problems).errorCount == 1_499)
    }

    @Test func nearDuplicateRegexesAreEachAmbiguousOnce() {
        let routes = (0..<300).map {
            #"{"name": "r\#($0)", "pattern": "/:a", "destination": "S", "params": {"a": {"type": "regex", "pattern": "a{\#($0 + 1)}"}}}"#
        }
        let problems = Fixtures.problems(routes)
        #expect(problems.count == 299)
        #expect(problems.allSatisfy { $0.code == "ambiguous" })
        #expect(Set(problems.map(\.pointer)).count == 299)
    }

    @Test func shapesPastTheComparisonBudgetLoadWithAWarning() throws {
        // 5,000 disjoint enums of one shape: 5,000 kinds, 50 million comparisons. Valid, so
        // it loads; the warning says the checks stopped.
        let routes = (0..<5_000).map {
            #"{"name": "r\#($0)", "pattern": "/:a", "destination": "S", "params": {"a": {"type": "enum", "values": ["v\#($0)"]}}}"#
        }
        let loaded = try Fixtures.compile(routes)
        #expect(loaded.warnings.map(\.code) == ["checks-incomplete"])
        #expect(loaded.resolve("/v4321").route?.name == "r4321")
    }

    @Test func aChainOfMoreRedirectsThanTheBoundIsAWarning() throws {
        // 2,000 distinct redirects in a row: no loop, so no error, and no recursion as deep.
        var routes = (0..<2_000).map { #"{"name": "r\#($0)", "pattern": "/r\#($0)/:a", "redirect": "/r\#($0 + 1)/:a"}"# }
        routes.append(#"{"name": "end", "pattern": "/r2000/:a", "destination": "S"}"#)
        let loaded = try Fixtures.compile(routes)
        #expect(loaded.warnings.contains { $0.code == "redirect-chain" && $0.pointer == "/routes/0/redirect" })
        #expect(loaded.warnings.allSatisfy { $0.code == "redirect-chain" })
        #expect(loaded.resolve("/r1995/x").route?.name == "end")
        #expect(loaded.resolve("/r0/x").status == .fallback)
    }
}
