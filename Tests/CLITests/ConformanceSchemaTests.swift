import Foundation
import Switchboard
import Testing
import TestSupport

/// The conformance folder's two formats have a JSON Schema each in the repository
/// (`docs/conformance.schema.json`, `docs/manifest-errors.schema.json`, docs/clients.md):
/// the committed documents (fresh exports, `ConformanceFilesTests`) validate against them,
/// and documents that break their rules do not.
struct ConformanceSchemaTests {
    static let validator = validator(schema: "docs/conformance.schema.json")
    static let errorsValidator = validator(schema: "docs/manifest-errors.schema.json")

    static func validator(schema: String) -> String {
        """
        import json, sys, jsonschema
        schema = json.load(open("\(schema)"))
        jsonschema.Draft202012Validator.check_schema(schema)
        errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(json.load(open(sys.argv[1]))), key=lambda e: list(e.path))
        for message in sorted({e.message[:200] for e in errors})[:20]: print(message)
        sys.exit(1 if errors else 0)
        """
    }

    @Test(arguments: ConformanceFilesTests.vectorFiles)
    func theCommittedVectorsValidateAgainstTheSchema(_ file: String) async throws {
        let python = try Subprocess.python()
        let run = try await Subprocess.runOffThePool(python, ["-c", Self.validator, file])
        #expect(run.status == 0, "\(file): \(run.stdout)\(run.stderr)")
    }

    @Test func theManifestErrorsValidateAndABrokenOneDoesNot() async throws {
        let python = try Subprocess.python()
        let file = "conformance/" + ConformanceFilesTests.errorsFile
        let good = try await Subprocess.runOffThePool(python, ["-c", Self.errorsValidator, file])
        #expect(good.status == 0, "\(good.stdout)\(good.stderr)")
        // An error without its pointer, and a case that is refused with nothing.
        let text = try String(contentsOf: Subprocess.packageRoot.appendingPathComponent(file), encoding: .utf8)
        let broken = text.replacingOccurrences(of: #"{"pointer":"/routes/1/name","code":"duplicate-name"}"#, with: #"{"code":"duplicate-name"}"#)
            .replacingOccurrences(of: #""errors":[{"pointer":"","code":"invalid-json"}]"#, with: #""errors":[]"#)
        #expect(broken != text)
        let run = try await Subprocess.runOffThePool(python, ["-c", Self.errorsValidator, try CLI.temporaryFile(broken, name: "errors.json")])
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("'pointer' is a required property"), "\(run.stdout)")
        #expect(run.stdout.contains("should be non-empty") || run.stdout.contains("is too short"), "\(run.stdout)")
        // The schema names every code that refuses a manifest, and no other.
        let schema = try JSONParser.parse(Array(try Data(contentsOf: Subprocess.packageRoot.appendingPathComponent("docs/manifest-errors.schema.json"))))
        let codes = schema["$defs"]?["case"]?["properties"]?["errors"]?["items"]?["properties"]?["code"]?["enum"]?.arrayValue?.compactMap(\.stringValue)
        #expect(codes.map(Set.init) == Set(DiagnosticCode.allCases.map(\.rawValue)).subtracting(ConformanceFilesTests.warningCodes))
    }

    /// Every updater scenario validates against its schema; one that breaks it does not.
    @Test func theUpdaterScenariosValidate() async throws {
        let python = try Subprocess.python()
        let folder = Subprocess.packageRoot.appendingPathComponent("conformance/updater")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.sorted()
        #expect(files.count >= 12)
        let validator = Self.validator(schema: "docs/updater-scenario.schema.json")
        for file in files {
            let run = try await Subprocess.runOffThePool(python, ["-c", validator, folder.appendingPathComponent(file).path])
            #expect(run.status == 0, "\(file): \(run.stdout)\(run.stderr)")
        }
        let text = try String(contentsOf: folder.appendingPathComponent("retry-after.json"), encoding: .utf8)
        let broken = text.replacingOccurrences(of: #""app": "start""#, with: #""app": "launch""#)
        #expect(broken != text)
        let run = try await Subprocess.runOffThePool(python, ["-c", validator, try CLI.temporaryFile(broken, name: "scenario.json")])
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
    }

    @Test func aDocumentThatBreaksTheRulesDoesNotValidate() async throws {
        let python = try Subprocess.python()
        let vectors = try CLI.run(["export", "conformance", "--config", "Tests/ClientTests/Fixtures/conformance-routes.json"])
        // A matched result without its route, and a context field no client knows.
        let broken = vectors.stdout
            .replacingOccurrences(of: #""status":"matched","route":{"name":"home","pattern":"/"},"#, with: #""status":"matched","#)
            .replacingOccurrences(of: #""context":{"platform":"#, with: #""context":{"locale":"en","platform":"#)
        #expect(broken != vectors.stdout)
        let run = try await Subprocess.runOffThePool(python, ["-c", Self.validator, try CLI.temporaryFile(broken, name: "vectors.json")])
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("'route' is a required property"), "\(run.stdout)")
        #expect(run.stdout.contains("'locale' was unexpected"), "\(run.stdout)")
    }
}
