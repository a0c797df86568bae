import Testing
import RouteMatching
import TestSupport
@testable import Switchboard

/// docs/manifest.md `redirect`: a `redirect-cycle` error exactly when some URL's redirects never
/// end, a `redirect-chain` warning where they end past the hop limit.
struct RedirectChainTests {
    func problems(_ routes: [String]) -> [ManifestDiagnostic] { Fixtures.problems(routes) }

    @Test func aLegacyRedirectThatTakesOffASegmentEachHopLoads() throws {
        let routes = try Fixtures.compile([
            #"{"name": "artist", "pattern": "/artist/*rest", "destination": "Artist"}"#,
            #"{"name": "legacy", "pattern": "/artist/old/*rest", "redirect": "/artist/*rest"}"#,
        ])
        let result = routes.resolve("/artist/old/old/x")
        #expect(result.route?.name == "artist")
        #expect(result.paramsText["rest"] == #""x""#)
        // Nine `old`s take nine hops: past the limit, and the warning names such a URL.
        let warning = try #require(routes.warnings.first { $0.code == "redirect-chain" })
        #expect(warning.pointer == "/routes/1/redirect")
        #expect(warning.message.contains("/artist/old/old/old/old/old/old/old/old/old"), "\(warning.message)")
        #expect(routes.resolve("/artist/" + Array(repeating: "old", count: 9).joined(separator: "/") + "/x").status == .fallback)
    }

    @Test func anIntNeverMeetsALiteral() throws {
        let routes = try Fixtures.compile([
            #"{"name": "works", "pattern": "/works/:id/*rest", "destination": "Works"}"#,
            #"{"name": "legacy", "pattern": "/works/edit/:id/*rest", "redirect": "/works/:id/*rest", "params": {"id": {"type": "int"}}}"#,
        ])
        #expect(routes.warnings.isEmpty, "\(routes.warnings)")
        #expect(routes.resolve("/works/edit/12/a/b").route?.name == "works")
    }

    @Test func chainsThatNeverEndAreErrors() {
        // Back to a URL already visited.
        let loop = problems([
            #"{"name": "a", "pattern": "/a/:x", "redirect": "/b/:x"}"#,
            #"{"name": "b", "pattern": "/b/:x", "redirect": "/a/:x"}"#,
        ]).filter { $0.code == "redirect-cycle" }
        #expect(loop.count == 1)
        #expect(loop.first?.pointer == "/routes/0/redirect")
        #expect(loop.first?.message.hasPrefix(#"redirects form a cycle: "a" -> "b" -> "a": /a/"#) == true, "\(loop)")
        // The same redirect again, on a longer URL each time.
        let growing = problems([
            #"{"name": "w", "pattern": "/w/:p/*r", "redirect": "/w/:p/show/*r"}"#,
        ]).filter { $0.code == "redirect-cycle" }
        #expect(growing.count == 1)
        #expect(growing.first?.message.contains(#"redirects never end: "w" -> "w""#) == true, "\(growing)")
        // A typed value that can be the literal: `7` is an int and a slug.
        #expect(problems([
            #"{"name": "works", "pattern": "/works/:id/*rest", "destination": "Works"}"#,
            #"{"name": "legacy", "pattern": "/works/7/:id/*rest", "redirect": "/works/:id/7/*rest", "params": {"id": {"type": "int"}}}"#,
        ]).map(\.code) == ["redirect-cycle"])
    }

    @Test func aCycleOnlyAGatedRouteBreaksIsStillACycle() {
        // With an appVersion before 2.0 the `b` route refuses and `/b/x` falls to the
        // redirect back to `/a/x`: some URL never ends.
        #expect(problems([
            #"{"name": "a", "pattern": "/a/:x", "redirect": "/b/:x"}"#,
            #"{"name": "b", "pattern": "/b/:x", "destination": "B", "since": "2.0.0"}"#,
            #"{"name": "b-old", "pattern": "/b/*rest", "redirect": "/a/*rest"}"#,
        ]).filter { $0.severity == .error }.map(\.code) == ["redirect-cycle"])
    }

    /// A manifest whose redirects could ask for millions of hops is followed within a
    /// budget: a loop found on the way is still an error, and a warning says what was left.
    @Test func followingIsBoundedWhateverTheManifest() {
        var routes = (0..<30).map {
            #"{"name": "r\#($0)", "pattern": "/(a/)(b/)(c/)(d/)(e/)(f/):x/:y/*r", "redirect": "/:y/:x/*r", "priority": \#($0)}"#
        }
        routes += (0..<40).map { #"{"name": "d\#($0)", "pattern": "/l\#($0)/:q", "destination": "D"}"# }
        let problems = self.problems(routes)
        #expect(problems.contains { $0.code == "redirect-cycle" && $0.message.contains("comes back to a URL it visited") })
        #expect(problems.contains { $0.code == "redirect-chain" && $0.message.contains("200000 steps of their URLs were followed") })
    }

    // MARK: - The property: the error exactly where some URL's chain never ends

    /// Random manifests from a small vocabulary, so that routes and redirects overlap.
    struct Generator {
        var random: SplitMix
        static let literals = ["a", "b", "old"]
        static let types = [nil, #"{"type": "int"}"#, #"{"type": "slug"}"#, #"{"type": "enum", "values": ["a", "x"]}"#,
                            #"{"type": "uuid"}"#]

        mutating func pick<T>(_ items: [T]) -> T { items[Int(random.next() % UInt64(items.count))] }
        mutating func chance(_ percent: UInt64) -> Bool { random.next() % 100 < percent }

        mutating func route(_ n: Int) -> String {
            var segments: [String] = [], params: [String] = [], declarations: [String] = []
            let fixed = 1 + Int(random.next() % 2)
            for i in 0..<fixed {
                if chance(55) {
                    segments.append(pick(Self.literals))
                } else {
                    let name = "p\(i)"
                    params.append(name)
                    segments.append(":" + name)
                    if let type = pick(Self.types) { declarations.append(#""\#(name)": \#(type)"#) }
                }
            }
            var pattern = segments.map { "/" + $0 }.joined()
            if fixed == 1 && chance(15) { pattern += "(/\(pick(Self.literals)))" }
            let wildcard = chance(35)
            if wildcard { pattern += "/*r" }
            let declared = declarations.isEmpty ? "" : #", "params": {\#(declarations.joined(separator: ", "))}"#
            guard chance(45) else {
                return #"{"name": "r\#(n)", "pattern": "\#(pattern)", "destination": "D\#(n)"\#(declared)}"#
            }
            var target: [String] = []
            for _ in 0..<(1 + Int(random.next() % 3)) {
                target.append(!params.isEmpty && chance(45) ? ":" + pick(params) : pick(Self.literals))
            }
            if wildcard && chance(70) { target.append("*r") }
            return #"{"name": "r\#(n)", "pattern": "\#(pattern)", "redirect": "/\#(target.joined(separator: "/"))"\#(declared)}"#
        }

        mutating func manifest() -> [String] {
            var routes: [String] = []
            for n in 0..<(2 + Int(random.next() % 4)) { routes.append(route(n)) }
            return routes
        }
    }

    /// The model: every path of up to four segments from the manifest's literals, its enum
    /// values and a value of each type, followed hop by hop until it ends, comes back to a
    /// path it visited, or passes six times its length in hops (plus two per redirect).
    static func someChainNeverEnds(_ manifest: Manifest) -> Bool {
        var vocabulary = Set(["7", "0f8fad5b-d9cb-469f-a165-70867728950e", "zq", "z.q"])
        for route in manifest.routes {
            for pattern in route.patterns + (route.redirect.map { [$0] } ?? []) {
                for expansion in pattern.expansions { for case .literal(let text) in expansion { vocabulary.insert(text) } }
            }
            for declaration in route.params { if case .enumeration(let values) = declaration.type { vocabulary.formUnion(values) } }
        }
        let values = vocabulary.sorted()
        let redirects = manifest.routes.filter { $0.redirect != nil }.count
        let stepper = RedirectStepper(manifest: manifest, gatesOpen: true)
        var paths: [[String]] = [[]]
        var frontier: [[String]] = [[]]
        for _ in 0..<4 {
            frontier = frontier.flatMap { path in values.map { path + [$0] } }
            paths += frontier
        }
        for path in paths {
            var current = SegmentBuffer(path)
            var seen: Set<[String]> = [path]
            var hops = 0
            while case .redirect(_, let next) = stepper.step(host: nil, current) {
                hops += 1
                current = next
                if !seen.insert(current.strings).inserted || hops > 6 * max(path.count, 1) + 2 * redirects { return true }
            }
        }
        return false
    }

    struct PropertyRun: Sendable {
        var manifests = 0, cycles = 0, chains = 0
        var disagreements: [String] = []
    }

    /// Computed off the pool the tests share (tens of seconds in a debug build, a chunk a
    /// thread): see ``Subprocess/offThePool(_:)``.
    @Test(arguments: 0..<8)
    func theErrorIsGivenExactlyWhereSomeChainNeverEnds(chunk: UInt64) async throws {
        let counts = try await Subprocess.offThePool { () throws -> PropertyRun in
            var generator = Generator(random: SplitMix(seed: 0x5EED_0045 &+ chunk))
            var counts = PropertyRun()
            for _ in 0..<400 {
                let routes = generator.manifest()
                let text = Fixtures.manifestJSON(routes)
                var decoder = ManifestDecoder()
                guard let manifest = decoder.decode(try JSONParser.parse(Array(text.utf8))), decoder.diagnostics.isEmpty else { continue }
                let diagnostics = Fixtures.problems(routes)
                let error = diagnostics.contains { $0.code == "redirect-cycle" }
                let model = Self.someChainNeverEnds(manifest)
                if error != model { counts.disagreements.append("validator \(error), model \(model) for\n\(text)\n\(diagnostics)") }
                counts.manifests += 1
                if model { counts.cycles += 1 }
                if diagnostics.contains(where: { $0.code == "redirect-chain" }) { counts.chains += 1 }
            }
            return counts
        }
        #expect(counts.disagreements.isEmpty, "\(counts.disagreements.prefix(3).joined(separator: "\n\n"))")
        print("redirect property, chunk \(chunk): \(counts.manifests) manifests, \(counts.cycles) with a chain that never ends, \(counts.chains) with a redirect-chain warning")
        #expect(counts.manifests > 300)
    }
}
