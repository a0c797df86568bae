import Foundation
import Testing

@Suite(.serialized)
struct CheckCommandTests {
    @Test func acceptsTheBundledManifest() throws {
        let out = try CLI.run(["check"])
        #expect(out.status == 0, "\(out.stdout)\(out.stderr)")
        #expect(out.stdout.hasPrefix("Config/routes.json: OK: version 1, 52 routes"))
        #expect(!out.stdout.contains("warning"))
        #expect(try CLI.run(["check", "Config/routes.json"]).status == 0)
    }

    @Test func printsEveryProblemOfABrokenManifestAndExits1() throws {
        let path = try CLI.temporaryFile("""
        { "version": 1, "hosts": ["artsy.net"],
          "routes": [
            { "name": "artwork", "pattern": "/artwork/:id", "destination": "Artwork" },
            { "name": "artwork-again", "pattern": "/artwork/:id", "destination": "Artwork2" },
            { "name": "x-int", "pattern": "/x/:id", "destination": "X", "params": {"id": {"type": "int"}} },
            { "name": "x-slug", "pattern": "/x/:n", "destination": "X", "params": {"n": {"type": "slug"}} },
            { "name": "nested", "pattern": "/n((/:a))", "destination": "N" },
            { "name": "r1", "pattern": "/r1/:id", "redirect": "/r2/:id" },
            { "name": "r2", "pattern": "/r2/:id", "redirect": "/r1/:id" },
            { "name": "tab", "pattern": "/t", "destination": "T", "presentation": "tab" },
            { "name": "tab", "pattern": "/u", "destination": "U", "presentation": "popover" }
          ] }
        """)
        let out = try CLI.run(["check", path])
        #expect(out.status == 1)
        let lines = out.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "\(path): 7 errors, 0 warnings")
        for expected in [
            "error[duplicate] /routes/1/pattern: routes \"artwork\" (/artwork/:id) and \"artwork-again\" (/artwork/:id)",
            "error[ambiguous] /routes/3/pattern: routes \"x-int\" (/x/:id) and \"x-slug\" (/x/:n)",
            "error[nested-optional] /routes/4/pattern",
            "error[redirect-cycle] /routes/5/redirect: redirects form a cycle: \"r1\" -> \"r2\" -> \"r1\"",
            "error[missing-tab] /routes/7/presentation",
            "error[duplicate-name] /routes/8/name",
            "error[unknown-style] /routes/8/presentation",
        ] {
            #expect(lines.contains { $0.hasPrefix("  " + expected) }, "missing: \(expected)\n\(out.stdout)")
        }
    }

    @Test func reportsInvalidJSONWithItsOffset() throws {
        let out = try CLI.run(["check", try CLI.temporaryFile(#"{"version": 1, "routes": [}"#)])
        #expect(out.status == 1)
        #expect(out.stdout.contains("error[invalid-json] /: invalid JSON at byte 26"))
    }

    @Test func exits2WhenTheFileCannotBeRead() throws {
        let missing = try CLI.run(["check", "/nonexistent/routes.json"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("no such file"))
        #expect(try CLI.run(["check", "/tmp"]).status == 2)
        #expect(try CLI.run(["check", "--bogus"]).status == 2)
    }
}
