import Foundation
import Switchboard
import SwitchboardTooling
import Testing
import TestSupport

/// The committed conformance folder (`conformance/`, docs/clients.md) is what the engine
/// says today: every vectors file is a fresh `switchboard export conformance`, and every
/// refusal in `manifest-errors.json` is the decoder's. A routing change shows up as a diff
/// of these files; `SWITCHBOARD_REGENERATE=1 swift test --skip-build --filter
/// ConformanceFilesTests` writes them anew instead of comparing.
@Suite(.serialized)
struct ConformanceFilesTests {
    static let folder = Subprocess.packageRoot.appendingPathComponent("conformance")
    static let regenerate = ProcessInfo.processInfo.environment["SWITCHBOARD_REGENERATE"] == "1"
    static let howToRegenerate = "SWITCHBOARD_REGENERATE=1 swift test --skip-build --filter ConformanceFilesTests"

    /// Each vectors file and the export that writes it (paths from the package root).
    static let exports: [(file: String, arguments: [String])] = [
        ("vectors/routes.json", ["--config", "Config/routes.json"]),
        ("vectors/conformance-routes.json", ["--config", "Tests/ClientTests/Fixtures/conformance-routes.json"]),
        ("vectors/eigen-routes.json", ["--config", "Tests/CLITests/Fixtures/eigen-routes.json"]),
        ("vectors/xss-manifest.json", ["--config", "Tests/Browser/xss-manifest.json"]),
        ("vectors/engine-edges.json", ["--config", "clients/typescript/test/fixtures/engine-edges.json",
                                       "--urls", "clients/typescript/test/fixtures/engine-edges.urls"]),
    ]
    static let randomSeeds: [UInt64] = [1, 2, 3]
    /// Every vectors file of the folder, from the package root.
    static var vectorFiles: [String] {
        (exports.map(\.file) + randomSeeds.map { "vectors/random-\($0).json" }).map { "conformance/" + $0 }
    }
    static let errorsFile = "manifest-errors.json"
    /// The two limits whose manifests would take megabytes; docs/manifest.md states them.
    static let codesTooLargeToShow: Set<String> = ["too-many-routes", "too-many-expansions", "more-problems",
                                                   // The server's and `check`'s, past a 128 KB file: clients resolve without apps.
                                                   "aasa-too-large"]

    /// Compares `fresh` with the committed file, or writes it when regenerating.
    static func check(_ name: String, _ fresh: [UInt8]) throws {
        let url = folder.appendingPathComponent(name)
        if regenerate {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(fresh).write(to: url, options: .atomic)
            return
        }
        let committed = try? Data(contentsOf: url)
        #expect(committed.map([UInt8].init) == fresh, "conformance/\(name) is not what the engine says now; if the change is meant, run \(howToRegenerate)")
    }

    @Test(arguments: exports.map(\.file))
    func theCommittedVectorsAreAFreshExport(file: String) async throws {
        let arguments = try #require(Self.exports.first { $0.file == file }).arguments
        let run = try await Subprocess.runOffThePool(Subprocess.switchboard, ["export", "conformance"] + arguments)
        try #require(run.status == 0, "\(run.stderr)")
        try Self.check(file, Array(run.stdoutData))
    }

    @Test(arguments: randomSeeds)
    func theRandomTablesAreAFreshExport(seed: UInt64) throws {
        let compiled = try Self.randomTable(seed: seed)
        #expect(compiled.manifest.routes.count >= 20, "\(compiled.manifest.routes.count) routes")
        let document = ConformanceVectors.document(for: compiled, generator: "random table, seed \(seed) (Tests/CLITests/ConformanceFilesTests.swift)")
        try Self.check("vectors/random-\(seed).json", document)
    }

    /// Manifests a client must refuse, each with the errors (pointer and code, sorted) the
    /// engine refuses it with. The cases are the committed file's; their errors are what
    /// the decoder says now.
    @Test func theManifestErrorsAreTheDecodersAndCoverEveryCode() throws {
        let committed = [UInt8](try Data(contentsOf: Self.folder.appendingPathComponent(Self.errorsFile)))
        let document = try JSONParser.parse(committed)
        #expect(document["format"] == .string("switchboard-manifest-errors"))
        let cases = try #require(document["cases"]?.arrayValue)
        var w = JSONWriter(capacity: committed.count)
        w.raw("{\"format\":\"switchboard-manifest-errors\",\"contract\":")
        w.integer(Int64(ConformanceVectors.contractVersion))
        w.raw(",\"generator\":")
        w.string(Self.howToRegenerate)
        w.raw(",\n\"cases\":[")
        var covered: Set<String> = []
        var names: Set<String> = []
        for (i, item) in cases.enumerated() {
            let name = try #require(item["name"]?.stringValue)
            let text = try #require(item["manifest"]?.stringValue)
            #expect(names.insert(name).inserted, "two cases named \(name)")
            let errors: [ManifestDiagnostic]
            do {
                _ = try CompiledManifest(json: Array(text.utf8))
                errors = []
            } catch {
                errors = error.errors.sorted { ($0.pointer, $0.code) < ($1.pointer, $1.code) }
            }
            #expect(!errors.isEmpty, "\(name): the engine accepts this manifest")
            covered.formUnion(errors.map(\.code))
            w.raw(i == 0 ? "\n" : ",\n")
            w.raw("{\"name\":")
            w.string(name)
            w.raw(",\"manifest\":")
            w.string(text)
            w.raw(",\"errors\":[")
            for (j, e) in errors.enumerated() {
                if j > 0 { w.byte(UInt8(ascii: ",")) }
                w.raw("{\"pointer\":")
                w.string(e.pointer)
                w.raw(",\"code\":")
                w.string(e.code)
                w.byte(UInt8(ascii: "}"))
            }
            w.raw("]}")
        }
        w.raw("\n]}\n")
        try Self.check(Self.errorsFile, w.bytes)
        let errorCodes = Set(DiagnosticCode.allCases.map(\.rawValue)).subtracting(Self.warningCodes)
        #expect(errorCodes.subtracting(covered).subtracting(Self.codesTooLargeToShow).isEmpty,
                "no case is refused with \(errorCodes.subtracting(covered).subtracting(Self.codesTooLargeToShow).sorted())")
    }

    /// The codes that never refuse a manifest (docs/manifest.md, "Warnings").
    static let warningCodes: Set<String> = ["unknown-field", "trailing-slash", "undeclared-param", "redirect-target-hosts",
                                            "redirect-chain", "echo-shape", "checks-incomplete"]

    /// Nothing stale: the folder holds the files above, its README, and nothing else (but the
    /// updater's scenarios, written by hand: UpdaterScenarioTests and the TypeScript tests read them).
    @Test func theFolderHoldsNothingElse() throws {
        guard !Self.regenerate else { return }
        let files = Set(try FileManager.default.subpathsOfDirectory(atPath: Self.folder.path)
            .filter { ($0.hasSuffix(".json") || $0.hasSuffix(".md")) && !$0.hasPrefix("updater/") })
        let expected = Set(Self.vectorFiles.map { String($0.dropFirst("conformance/".count)) } + [Self.errorsFile, "README.md"])
        #expect(files == expected)
    }

    // MARK: Random tables

    /// A table of 40 routes drawn from `seed`: literals, typed params, optional groups,
    /// wildcards, aliases, hosts, schemes, variants, version gates, priorities, injected
    /// params and redirects. Routes the engine refuses (a duplicate, an ambiguity) are
    /// dropped until it compiles, so every seed gives a valid table.
    static func randomTable(seed: UInt64) throws -> CompiledManifest {
        var random = SplitMix(seed: seed)
        func pick<T>(_ items: [T]) -> T { items[Int(random.next() % UInt64(items.count))] }
        func chance(_ percent: UInt64) -> Bool { random.next() % 100 < percent }
        let words = ["artist", "artwork", "show", "fair", "search", "user", "settings", "news", "sale", "gene", "auction", "ÿ-café"]
        let hosts = ["example.com", "www.example.com", "m.example.org"]
        var routes: [JSONValue] = []
        var literalPatterns: [String] = []
        for n in 0..<40 {
            var members: [JSONValue.Member] = [.init("name", .string("r\(n)"))]
            var pattern = ""
            var params: [JSONValue.Member] = []
            var literal = true
            for depth in 0..<(1 + Int(random.next() % 4)) {
                if depth > 0 && chance(25) {
                    let name = "p\(depth)"
                    pattern += "/:" + name
                    literal = false
                    switch random.next() % 6 {
                    case 0: params.append(.init(name, .object([.init("type", .string("int"))])))
                    case 1: params.append(.init(name, .object([.init("type", .string("uuid"))])))
                    case 2: params.append(.init(name, .object([.init("type", .string("enum")), .init("values", .array([.string("a"), .string("b")]))])))
                    case 3: params.append(.init(name, .object([.init("type", .string("regex")), .init("pattern", .string("[a-z]{2,5}"))])))
                    default: break
                    }
                } else if depth > 0 && chance(10) {
                    pattern += "(/" + pick(words) + ")"
                    literal = false
                } else {
                    pattern += "/" + pick(words)
                }
            }
            if chance(8) {
                pattern += "/*rest"
                literal = false
            }
            if chance(10) {
                members.append(.init("patterns", .array([.string(pattern), .string("/alias" + pattern)])))
            } else {
                members.append(.init("pattern", .string(pattern)))
            }
            if !params.isEmpty { members.append(.init("params", .object(params))) }
            if chance(12), !literalPatterns.isEmpty {
                members.append(.init("redirect", .string(pick(literalPatterns))))
                routes.append(.object(members))
                continue
            }
            if literal { literalPatterns.append(pattern) }
            members.append(.init("destination", .string("Screen\(n % 9)")))
            switch random.next() % 8 {
            case 0: members.append(.init("presentation", .string("modal")))
            case 1: members.append(.init("presentation", .object([.init("style", .string("tab")), .init("tab", .string("home"))])))
            case 2: members.append(.init("presentation", .object([.init("style", .string("sheet")), .init("detents", .array([.string("medium")]))])))
            case 3: members.append(.init("presentation", .string("web")))
            default: break
            }
            if chance(15) { members.append(.init("hosts", .array([.string(pick(hosts))]))) }
            if chance(15) { members.append(.init("since", .string(pick(["1.2.0", "2.0.0", "2.0.0-beta.2"])))) }
            if chance(10) { members.append(.init("until", .string("3.0.0"))) }
            if chance(10) { members.append(.init("priority", .integer(Int64(random.next() % 3)))) }
            if chance(15) { members.append(.init("inject", .object([.init("source", .string("random")), .init("n", .integer(Int64(n)))]))) }
            if chance(20) {
                let when: JSONValue = pick([
                    .object([.init("platform", .string("android"))]),
                    .object([.init("idiom", .string("tablet"))]),
                    .object([.init("appVersion", .string(">=2.1.0"))]),
                    .object([.init("platform", .array([.string("ios"), .string("web")])), .init("idiom", .string("phone"))]),
                ])
                members.append(.init("variants", .array([.object([.init("when", when), .init("destination", .string("Variant\(n)"))])])))
            }
            if chance(5) { members.append(.init("universalLink", .bool(false))) }
            routes.append(.object(members))
        }
        while true {
            let document = JSONValue.object([
                .init("version", .integer(Int64(seed))), .init("hosts", .array(hosts.map { .string($0) })),
                .init("schemes", .array([.string("app")])), .init("routes", .array(routes)),
            ])
            do {
                return try CompiledManifest(json: document.serialized())
            } catch {
                // Drop the last route an error points into, and try again.
                let indices = error.errors.compactMap { e -> Int? in
                    let parts = e.pointer.split(separator: "/")
                    return parts.count >= 2 && parts[0] == "routes" ? Int(parts[1]) : nil
                }
                guard let drop = indices.max(), drop < routes.count else { throw error }
                routes.remove(at: drop)
            }
        }
    }
}
