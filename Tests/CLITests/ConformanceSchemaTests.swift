import Foundation
import Testing
import TestSupport

/// The conformance vectors' format has a JSON Schema in the repository
/// (`docs/conformance.schema.json`, docs/clients.md): documents the CLI exports from real and
/// fixture tables validate against it, and one that breaks its rules does not.
struct ConformanceSchemaTests {
    static let validator = """
        import json, sys, jsonschema
        schema = json.load(open("docs/conformance.schema.json"))
        jsonschema.Draft202012Validator.check_schema(schema)
        errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(json.load(open(sys.argv[1]))), key=lambda e: list(e.path))
        for message in sorted({e.message[:200] for e in errors})[:20]: print(message)
        sys.exit(1 if errors else 0)
        """

    @Test(arguments: ["Config/routes.json", "Tests/ClientTests/Fixtures/conformance-routes.json", "Tests/CLITests/Fixtures/eigen-routes.json"])
    func exportedVectorsValidateAgainstTheSchema(_ table: String) throws {
        let python = try Subprocess.python()
        let vectors = try CLI.run(["export", "conformance", "--config", table])
        #expect(vectors.status == 0)
        let file = try CLI.temporaryFile(vectors.stdout, name: "vectors.json")
        let run = try Subprocess.run(python, ["-c", Self.validator, file])
        #expect(run.status == 0, "\(table): \(run.stdout)\(run.stderr)")
    }

    @Test func aDocumentThatBreaksTheRulesDoesNotValidate() throws {
        let python = try Subprocess.python()
        let vectors = try CLI.run(["export", "conformance", "--config", "Tests/ClientTests/Fixtures/conformance-routes.json"])
        // A matched result without its route, and a context field no client knows.
        let broken = vectors.stdout
            .replacingOccurrences(of: #""status":"matched","route":{"name":"home","pattern":"/"},"#, with: #""status":"matched","#)
            .replacingOccurrences(of: #""context":{"platform":"#, with: #""context":{"locale":"en","platform":"#)
        #expect(broken != vectors.stdout)
        let run = try Subprocess.run(python, ["-c", Self.validator, try CLI.temporaryFile(broken, name: "vectors.json")])
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("'route' is a required property"), "\(run.stdout)")
        #expect(run.stdout.contains("'locale' was unexpected"), "\(run.stdout)")
    }
}
