import Foundation
import RouteMatching
import Switchboard
import Testing

/// The docs are held to the code: the manifest reference names every diagnostic code and
/// every rejection reason the code can emit (and nothing else as one), the README stays a
/// five-minute read that starts with the commands and a manifest, the docs read as what
/// the software does now (no work log), and the version is one number everywhere.
@Suite struct DocsTests {
    static func read(_ path: String) throws -> String {
        try String(contentsOf: CLI.packageRoot.appendingPathComponent(path), encoding: .utf8)
    }

    /// The first cell of each row of the table under `heading` (the first table after it).
    static func tableKeys(_ doc: String, under heading: String) -> [String] {
        guard let start = doc.range(of: heading) else { return [] }
        var keys: [String] = []
        var inTable = false
        for line in doc[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("|") {
                inTable = true
                let cell = line.dropFirst().prefix { $0 != "|" }.trimmingCharacters(in: .whitespaces)
                if cell.hasPrefix("`"), cell.hasSuffix("`"), cell.count > 2 { keys.append(String(cell.dropFirst().dropLast())) }
            } else if inTable {
                break
            }
        }
        return keys
    }

    @Test func theManifestReferenceNamesEveryDiagnosticCode() throws {
        let doc = try Self.read("docs/manifest.md")
        let documented = Self.tableKeys(doc, under: "Errors:") + Self.tableKeys(doc, under: "Warnings:")
        let codes = DiagnosticCode.allCases.map(\.rawValue)
        #expect(Set(codes).subtracting(documented).sorted() == [], "codes the code emits that docs/manifest.md does not explain")
        #expect(Set(documented).subtracting(codes).sorted() == [], "codes docs/manifest.md explains that the code never emits")
        #expect(documented.count == Set(documented).count, "a code explained twice")
    }

    @Test func theManifestReferenceNamesEveryRejectionReasonExactly() throws {
        let doc = try Self.read("docs/manifest.md")
        let documented = Self.tableKeys(doc, under: "## Rejection reasons")
        #expect(documented == URLRejection.allCases.map(\.rawValue))
        // And the texts are what results carry.
        let out = try CLI.run(["resolve", "--config", "Config/routes.json", "https:///x", "/a b", "javascript:alert(1)"])
        #expect(out.stdout.contains("\"reason\":\"three or more slashes before the host\""))
        #expect(out.stdout.contains("\"reason\":\"whitespace\""))
        #expect(out.stdout.contains("\"reason\":\"unsafe scheme\""))
    }

    @Test func theREADMEIsShortAndStartsWithTheCommandsAndAManifest() throws {
        let readme = try Self.read("README.md")
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count < 250, "README.md has \(lines.count) lines")
        let firstScreen = lines.prefix(60).joined(separator: "\n")
        #expect(firstScreen.contains("bash .ci/install && swift run -c release --experimental-lto-mode=full switchboard"))
        #expect(firstScreen.contains("bash .ci/install --test && swift build --build-tests && swift test --skip-build"))
        #expect(firstScreen.contains("```json"))
        // The manifest shown is one the server accepts, with a typed param, a variant and a redirect.
        let json = try #require(readme.components(separatedBy: "```json\n").dropFirst().first?.components(separatedBy: "\n```").first)
        let manifest = try CompiledManifest(json: Array(json.utf8))
        #expect(manifest.manifest.routes.contains { $0.redirect != nil })
        #expect(manifest.manifest.routes.contains { !$0.variants.isEmpty })
        #expect(manifest.manifest.routes.contains { $0.params.contains { $0.type != .string } })
        // Every document it links to exists.
        for link in readme.matches(of: /\]\(([A-Za-z0-9_.\/-]+\.md)\)/) {
            #expect(FileManager.default.fileExists(atPath: CLI.packageRoot.appendingPathComponent(String(link.1)).path), "\(link.1)")
        }
    }

    /// Docs say what the software does now: the history of the work is `git log`'s.
    @Test func noDocumentReadsAsAWorkLog() throws {
        let docs = try FileManager.default.contentsOfDirectory(atPath: CLI.packageRoot.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.map { "docs/" + $0 }
        let files = ["README.md", "ARCHITECTURE.md", "CHANGELOG.md", "clients/typescript/README.md"] + docs
        let banned: [(String, String)] = [
            ("an issue number", #"(?i)\bissues?\s+#?\d+"#), ("an issue reference", #"(^|[\s(])#\d{1,4}\b"#),
            ("a counted round of work", #"(?i)(^|[^-\w])(round|run|attempt|session)s?\s+\d+\b|\bthe\s+(second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth)\s+(round|run|attempt|change|pass)\b"#),
            ("the shared contract's section numbers", #"SPEC(\.md)?\s*§"#), ("this machine's hour", #"(?i)this machine's hour"#),
            ("the performance log", "performance-log"),
        ]
        for file in files {
            let text = try Self.read(file)
            for (what, pattern) in banned {
                if let hit = try text.firstMatch(of: Regex(pattern)) {
                    Issue.record("\(file) names \(what): \"\(text[hit.range])\"")
                }
            }
        }
        #expect(!FileManager.default.fileExists(atPath: CLI.packageRoot.appendingPathComponent("docs/performance-log.md").path))
        #expect(!FileManager.default.fileExists(atPath: CLI.packageRoot.appendingPathComponent("Sources/CAllocation").path))
    }

    /// A section number (`§3`) cites a document; the contract the product was built to is
    /// not in the repository, so a citation of it sends a reader nowhere. Sections of RFCs
    /// are cited by number; the repository's own documents by their headings.
    @Test func noSourceCitesAContractSectionTheRepositoryDoesNotHave() throws {
        var files: [String] = []
        for (folder, suffix) in [("Sources", ".swift"), ("Tests", ".swift"), ("clients/typescript/src", ".ts"),
                                 ("clients/typescript/test", ".js"), ("docs", ".md"), (".ci", "")] {
            let root = CLI.packageRoot.appendingPathComponent(folder)
            guard let walker = FileManager.default.enumerator(atPath: root.path) else { continue }
            for case let path as String in walker where path.hasSuffix(suffix) && !path.contains("__pycache__") {
                var directory: ObjCBool = false
                if FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path, isDirectory: &directory), !directory.boolValue {
                    files.append(folder + "/" + path)
                }
            }
        }
        files += ["README.md", "ARCHITECTURE.md", "CHANGELOG.md", "Package.swift", "clients/typescript/README.md"]
        #expect(files.count > 100)
        for file in files where file != "Tests/CLITests/DocsTests.swift" {
            guard let text = try? Self.read(file) else { continue }
            for hit in text.matches(of: /§\s*\d/) {
                let from = text.index(hit.range.lowerBound, offsetBy: -14, limitedBy: text.startIndex) ?? text.startIndex
                let before = text[from..<hit.range.lowerBound]
                if before.contains("RFC ") { continue }
                let line = text[..<hit.range.lowerBound].count { $0 == "\n" } + 1
                Issue.record("\(file):\(line) cites a section of no document here: \"\(before)\(text[hit.range])\"")
            }
        }
    }

    @Test func theVersionIsOneNumberEverywhere() throws {
        let version = SwitchboardVersion.current
        let out = try CLI.run(["--version"])
        #expect(out.status == 0)
        #expect(out.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == version)
        let package = try JSONSerialization.jsonObject(with: Data(Self.read("clients/typescript/package.json").utf8)) as? [String: Any]
        #expect(package?["version"] as? String == version)
        let changelog = try Self.read("CHANGELOG.md")
        #expect(changelog.contains("## \(version)"), "CHANGELOG.md has no section for \(version)")
    }
}
