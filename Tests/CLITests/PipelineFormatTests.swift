import Foundation
import Testing

/// `cases`, `validate --coverage`, contexts in cases, and the `--format github|json`
/// reports of `check`, `validate` and `diff`, read back as a CI runner and a tool would.
@Suite(.serialized)
struct PipelineFormatTests {
    /// A workflow command parsed back per GitHub's rules: `::level props::message`,
    /// properties split on `,` and `=`, then `%3A`, `%2C`, `%0D`, `%0A`, `%25` undone.
    struct Annotation: Equatable {
        var level: String
        var properties: [String: String]
        var message: String

        init?(_ line: Substring) {
            guard line.hasPrefix("::") else { return nil }
            let rest = line.dropFirst(2)
            guard let end = rest.range(of: "::") else { return nil }
            let head = rest[..<end.lowerBound]
            message = Self.unescape(rest[end.upperBound...])
            let parts = head.split(separator: " ", maxSplits: 1)
            level = String(parts[0])
            properties = [:]
            if parts.count > 1 {
                for pair in parts[1].split(separator: ",") {
                    let kv = pair.split(separator: "=", maxSplits: 1)
                    guard kv.count == 2 else { return nil }
                    properties[String(kv[0])] = Self.unescape(kv[1])
                }
            }
        }

        /// Left to right, so that `%250A` is `%0A`, not a newline.
        static func unescape(_ text: Substring) -> String {
            let codes: [String: String] = ["%3A": ":", "%2C": ",", "%0D": "\r", "%0A": "\n", "%25": "%"]
            var out = "", rest = text
            while let first = rest.first {
                if first == "%", let decoded = codes[String(rest.prefix(3))] {
                    out += decoded
                    rest = rest.dropFirst(3)
                } else {
                    out.append(first)
                    rest = rest.dropFirst()
                }
            }
            return out
        }
    }

    static func annotations(_ stdout: String) -> [Annotation] {
        stdout.split(separator: "\n").compactMap(Annotation.init)
    }

    /// Line and column (1-based, in characters) of the first occurrence of `needle`.
    static func position(of needle: String, in text: String) throws -> (Int, Int) {
        let range = try #require(text.range(of: needle))
        let before = text[..<range.lowerBound]
        let line = before.filter { $0 == "\n" }.count + 1
        let lineStart = before.lastIndex(of: "\n").map { text.index(after: $0) } ?? text.startIndex
        return (line, text[lineStart..<range.lowerBound].unicodeScalars.count + 1)
    }

    @Test func checkAnnotatesEachProblemOnItsLineAndColumn() throws {
        let manifest = """
        {
          "version": 1,
          "routes": [
            {"name": "a", "pattern": "/a/:id", "destination": "A"},
            {"name": "b",
               "pattern": "/a/:x", "destination": "B"},
            {"name": "ç", "pattern": "/c", "destination": "C", "colour": "red"}
          ]
        }
        """
        let path = try CLI.temporaryFile(manifest)
        let out = try CLI.run(["check", path, "--format", "github"])
        #expect(out.status == 1)
        let found = Self.annotations(out.stdout)
        #expect(found.count == 2, "\(out.stdout)")
        let duplicate = try #require(found.first { $0.level == "error" })
        let (line, column) = try Self.position(of: "\"/a/:x\"", in: manifest)
        #expect(duplicate.properties["file"] == path)
        #expect(duplicate.properties["line"] == String(line) && duplicate.properties["col"] == String(column))
        #expect(duplicate.properties["title"] == "duplicate /routes/1/pattern")
        let unknown = try #require(found.first { $0.level == "warning" })
        let (l2, c2) = try Self.position(of: "\"red\"", in: manifest)
        #expect(unknown.properties["line"] == String(l2) && unknown.properties["col"] == String(c2))

        let json = try CLI.run(["check", path, "--format", "json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(report["valid"] as? Bool == false)
        let first = try #require((report["diagnostics"] as? [[String: Any]])?.first)
        #expect(first["pointer"] as? String == "/routes/1/pattern")
        #expect(first["line"] as? Int == line && first["column"] as? Int == column)
        // Text says where too.
        #expect(try CLI.run(["check", path]).stdout.contains("(line \(line), column \(column))"))
    }

    @Test func aJSONSyntaxErrorLandsOnItsLine() throws {
        let path = try CLI.temporaryFile("{\n  \"version\": 1,\n  \"routes\": [tru]\n}")
        let found = Self.annotations(try CLI.run(["check", path, "--format", "github"]).stdout)
        #expect(found.first?.properties["line"] == "3" && found.first?.properties["col"] == "14")
    }

    @Test func hostileNamesCannotBreakOrForgeAnAnnotation() throws {
        let name = "evil%0A::error file=x,line=1::forged,\\nline:2 100%"
        let manifest = """
        {"version": 1, "routes": [
          {"name": "\(name)", "pattern": "/a", "destination": "A"},
          {"name": "other", "pattern": "/a", "destination": "B"}
        ]}
        """
        let out = try CLI.run(["check", try CLI.temporaryFile(manifest), "--format", "github"])
        let lines = out.stdout.split(separator: "\n")
        #expect(lines.count == 1, "\(out.stdout)")
        let annotation = try #require(Annotation(lines[0]))
        #expect(annotation.level == "error")
        #expect(annotation.message.contains("evil%0A::error file=x,line=1::forged,\nline:2 100%"))
        #expect(annotation.properties["line"] == "3")
        // The same through diff and validate.
        let a = try CLI.temporaryFile(#"{"version": 1, "routes": [{"name": "\#(name)", "pattern": "/a", "destination": "A"}]}"#)
        let b = try CLI.temporaryFile(#"{"version": 1, "routes": [{"name": "x", "pattern": "/b", "destination": "B"}]}"#)
        let diff = try CLI.run(["diff", a, b, "--format", "github"])
        for line in diff.stdout.split(separator: "\n") {
            let parsed = try #require(Annotation(line), "\(line)")
            #expect(Set(parsed.properties.keys).isSubset(of: ["file", "line", "col", "title"]))
            #expect(parsed.properties["file"].map { $0 == a || $0 == b } ?? true)
        }
        let decoded = name.replacingOccurrences(of: "\\n", with: "\n")
        #expect(Self.annotations(diff.stdout).contains { $0.message.contains("matched \(decoded) -> A push") }, "\(diff.stdout)")
    }

    @Test func casesPinTodaysBehaviourAndValidateAcceptsThem() throws {
        let out = try CLI.run(["cases"])
        #expect(out.status == 0)
        let lines = out.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("/artist-series/sample -> ArtistSeries"))
        #expect(lines.contains("/artist-series/sample [appVersion=6.4.999] -> fallback"))
        #expect(lines.contains("/orders/123e4567-e89b-12d3-a456-426614174000 -> OrderDetails"))
        #expect(lines.contains("https://live.artsy.net/login -> Login"))
        // Stable: the same twice.
        #expect(try CLI.run(["cases"]).stdout == out.stdout)
        let file = try CLI.temporaryFile(out.stdout, name: "cases.txt")
        let validated = try CLI.run(["validate", file, "--coverage", "--fail-under", "100"])
        #expect(validated.status == 0, "\(validated.stdout)")
        #expect(validated.stdout.contains("0 failed"))
        #expect(validated.stdout.contains("coverage: 59 of 59 routes and aliases reached (100.0%)"))
    }

    @Test func aCaseNamesItsContext() throws {
        let cases = """
        /user/conversations/12 [appVersion=7.1.0] -> WebView
        /user/conversations/12 [platform=ios appVersion=7.3.0] -> Conversation
        /user/conversations/12 -> Conversation
        """
        #expect(try CLI.run(["validate", try CLI.temporaryFile(cases, name: "c.txt")]).status == 0)
        #expect(try CLI.run(["validate", try CLI.temporaryFile("/a [colour=red] -> A\n", name: "c.txt")]).stderr.contains(#"unknown context field "colour"; use platform, idiom and appVersion"#))
        #expect(try CLI.run(["validate", try CLI.temporaryFile("/a [appVersion=seven] -> A\n", name: "c.txt")]).status == 2)
    }

    @Test func coverageNamesWhatNoCaseReachesAndFailsUnderTheThreshold() throws {
        let file = try CLI.temporaryFile("/artist/x -> Artist\n/works/x -> Artwork\n/inbox -> Inbox\n", name: "c.txt")
        let out = try CLI.run(["validate", file, "--coverage"])
        #expect(out.status == 0)
        let lines = out.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("coverage: 4 of 59 routes and aliases reached (6.7%)"))
        // The redirect passed through counts; the alias not given does not.
        #expect(!lines.contains("  not reached: legacy-works /works/:id"))
        #expect(lines.contains("  not reached: inbox /user/conversations"))
        let under = try CLI.run(["validate", file, "--coverage", "--fail-under", "50"])
        #expect(under.status == 1)
        #expect(under.stderr.contains("under --fail-under 50"))
        let json = try CLI.run(["validate", file, "--coverage", "--format", "json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect((report["coverage"] as? [String: Any])?["reached"] as? Int == 4)
        #expect(report["passed"] as? Int == 3)
    }

    @Test func validateAnnotatesTheLineOfEachFailedCase() throws {
        let path = try CLI.temporaryFile("/artist/x -> Artist\n\n/orders/nope -> OrderDetails\n", name: "cases.txt")
        let out = try CLI.run(["validate", path, "--format", "github"])
        #expect(out.status == 1)
        let found = Self.annotations(out.stdout)
        #expect(found.count == 2)
        #expect(found[0].properties == ["file": path, "line": "3", "col": "1", "title": "deep link /orders/nope"])
        #expect(found[0].message.hasPrefix("expected OrderDetails, got fallback -> WebView\n"))
        #expect(found[1].message == "1 passed, 1 failed")
    }

    @Test func diffAnnotatesTheRouteThatChanged() throws {
        let old = """
        {"version": 1, "routes": [
          {"name": "artist", "pattern": "/artist/:id", "destination": "Artist"},
          {"name": "show", "pattern": "/show/:id", "destination": "Show"}
        ]}
        """
        let new = """
        {"version": 1, "routes": [
          {"name": "artist", "pattern": "/artist/:id", "destination": "Artist"},

          {"name": "show", "pattern": "/show/:id", "destination": "Show", "params": {"id": {"type": "int"}}}
        ]}
        """
        let a = try CLI.temporaryFile(old, name: "old.json"), b = try CLI.temporaryFile(new, name: "new.json")
        let out = try CLI.run(["diff", a, b, "--format", "github"])
        #expect(out.status == 1)
        let found = Self.annotations(out.stdout)
        let breaking = try #require(found.first { $0.level == "error" && $0.properties["title"] == "breaking links of route show" })
        let (line, column) = try Self.position(of: "{\"name\": \"show\"", in: new)
        #expect(breaking.properties["file"] == b)
        #expect(breaking.properties["line"] == String(line) && breaking.properties["col"] == String(column))
        #expect(breaking.message.hasPrefix("matched show -> Show push {\"id\":"), "\(breaking.message)")
        #expect(breaking.message.contains("=> fallback -> WebView web; 2 URLs, e.g. "), "\(breaking.message)")
        #expect(breaking.message.contains("/show/sample"))
        // One change of one route, one annotation: the breaking one (values that an int
        // refuses now fall back), beside the change of values it takes ("1" becomes 1).
        #expect(found.filter { $0.level == "error" && $0.properties["title"]?.contains("route show") == true }.count == 1)
    }
}
