import Foundation
import Testing
@testable import Switchboard

struct ManifestValidationTests {
    func codes(_ routes: [String], extra: String = "") -> [String] {
        Fixtures.problems(routes, extra: extra).filter { $0.severity == .error }.map(\.code)
    }

    @Test func theSpecExampleIsValid() throws {
        _ = try Fixtures.compile(Fixtures.spec)
    }

    @Test func duplicatePatternsNameBothRoutes() {
        let problems = Fixtures.problems([
            #"{"name": "first", "pattern": "/artwork/:id", "destination": "A"}"#,
            #"{"name": "second", "pattern": "/artwork/:id", "destination": "B"}"#,
        ])
        #expect(problems.map(\.code) == ["duplicate"])
        #expect(problems[0].pointer == "/routes/1/pattern")
        #expect(problems[0].message.contains("\"first\"") && problems[0].message.contains("\"second\""))
    }

    @Test func pointersEscapeSlashAndTildeInKeys() throws {
        // Unknown fields are warnings, each with its pointer (RFC 6901: `~` is `~0`, `/` is `~1`).
        let compiled = try Fixtures.compile([#"{"name": "a", "pattern": "/a", "destination": "A", "x/y~z": 1, "plain": 2}"#])
        #expect(compiled.warnings.map(\.pointer).sorted() == ["/routes/0/plain", "/routes/0/x~1y~0z"])
    }

    @Test func ambiguousRoutesOfTheSameShapeAndPriority() {
        #expect(codes([
            #"{"name": "a", "pattern": "/x/:id", "destination": "A", "params": {"id": {"type": "int"}}}"#,
            #"{"name": "b", "pattern": "/x/:n", "destination": "B", "params": {"n": {"type": "slug"}}}"#,
        ]) == ["ambiguous"])
        // Disjoint types of the same shape are fine; so is a priority difference.
        #expect(codes([
            #"{"name": "a", "pattern": "/x/:id", "destination": "A", "params": {"id": {"type": "int"}}}"#,
            #"{"name": "b", "pattern": "/x/:n", "destination": "B", "params": {"n": {"type": "uuid"}}}"#,
            #"{"name": "c", "pattern": "/y/:id", "destination": "C", "params": {"id": {"type": "enum", "values": ["a"]}}}"#,
            #"{"name": "d", "pattern": "/y/:n", "destination": "D", "params": {"n": {"type": "enum", "values": ["b"]}}}"#,
            #"{"name": "e", "pattern": "/z/:id", "destination": "E", "priority": 1, "params": {"id": {"type": "int"}}}"#,
            #"{"name": "f", "pattern": "/z/:n", "destination": "F", "params": {"n": {"type": "slug"}}}"#,
        ]) == [])
        // A regex overlaps every other typed param.
        #expect(codes([
            #"{"name": "a", "pattern": "/x/:id", "destination": "A", "params": {"id": {"type": "int"}}}"#,
            #"{"name": "b", "pattern": "/x/:n", "destination": "B", "params": {"n": {"type": "regex", "pattern": "[a-z]+"}}}"#,
        ]) == ["ambiguous"])
    }

    @Test func aRouteThatCanNeverWin() {
        let problems = Fixtures.problems([
            #"{"name": "wide", "pattern": "/x/:id", "destination": "A", "priority": 2}"#,
            #"{"name": "narrow", "pattern": "/x/:n", "destination": "B"}"#,
        ])
        #expect(problems.map(\.code) == ["never-wins"])
        #expect(problems[0].pointer == "/routes/1/pattern")
    }

    @Test func aliasListedTwice() {
        #expect(codes([#"{"name": "a", "patterns": ["/a", "/b", "/a"], "destination": "A"}"#]) == ["duplicate"])
    }

    @Test func redirectCyclesAndTargetsAreRefused() {
        #expect(codes([
            #"{"name": "g", "pattern": "/r1/:id", "redirect": "/r2/:id"}"#,
            #"{"name": "h", "pattern": "/r2/:id", "redirect": "/r1/:id"}"#,
        ]) == ["redirect-cycle"])
        #expect(codes([#"{"name": "self", "pattern": "/s/:id", "redirect": "/s/:id"}"#]) == ["redirect-cycle"])
        #expect(codes([
            #"{"name": "a", "pattern": "/a/:id", "redirect": "/nowhere/:id"}"#,
            #"{"name": "b", "pattern": "/b", "destination": "B"}"#,
        ]) == ["redirect-target"])
        #expect(codes([
            #"{"name": "a", "pattern": "/a/:id", "redirect": "/b/:other"}"#,
            #"{"name": "b", "pattern": "/b/:x", "destination": "B"}"#,
        ]) == ["unknown-param"])
        #expect(codes([#"{"name": "a", "pattern": "/a", "redirect": "/b", "destination": "X"}"#, #"{"name": "b", "pattern": "/b", "destination": "B"}"#]) == ["redirect-conflict"])
    }

    @Test(arguments: [
        (#"{"name": "a", "pattern": "/a((/b))", "destination": "A"}"#, "nested-optional"),
        (#"{"name": "a", "pattern": "/a/*/b", "destination": "A"}"#, "wildcard-not-last"),
        (#"{"name": "a", "pattern": "/a", "destination": "A", "presentation": "tab"}"#, "missing-tab"),
        (#"{"name": "a", "pattern": "/a", "destination": "A", "presentation": {"style": "tab"}}"#, "missing-tab"),
        (#"{"name": "a", "pattern": "/a", "destination": "A", "presentation": "popover"}"#, "unknown-style"),
        (#"{"name": "a", "pattern": "/a/:p", "destination": "A", "params": {"p": {"type": "float"}}}"#, "unknown-type"),
        (#"{"name": "a", "pattern": "/a/:p", "destination": "A", "params": {"p": {"type": "regex", "pattern": "(a+)+$"}}}"#, "unsafe-regex"),
        (#"{"name": "a", "pattern": "/a/:p", "destination": "A", "params": {"p": {"type": "regex", "pattern": "(a|a)*$"}}}"#, "unsafe-regex"),
        (#"{"name": "a", "pattern": "/a/:p", "destination": "A", "params": {"p": {"type": "regex", "pattern": "(.*a){12}"}}}"#, "unsafe-regex"),
        (#"{"name": "a", "pattern": "/a/:p", "destination": "A", "params": {"p": {"type": "regex", "pattern": "(a)\\1"}}}"#, "unsafe-regex"),
        (#"{"name": "a", "pattern": "/a/:p", "destination": "A", "params": {"p": {"type": "regex", "pattern": "(?=a)a"}}}"#, "unsafe-regex"),
        (#"{"name": "a", "pattern": "/a/:p", "destination": "A", "params": {"p": {"type": "int", "default": "x"}}}"#, "invalid-default"),
        (#"{"name": "a", "pattern": "/a/:p", "destination": "A", "params": {"p": {"type": "enum"}}}"#, "invalid-param"),
        (#"{"name": "a", "hosts": ["evil.com"], "pattern": "/a", "destination": "A"}"#, "unknown-host"),
        (#"{"name": "a", "pattern": "/a", "destination": "A", "since": "8.0", "until": "7.0"}"#, "empty-range"),
        (#"{"name": "a", "pattern": "/a", "destination": "A", "variants": [{"when": {"appVersion": ">=8 <7"}, "destination": "B"}]}"#, "empty-range"),
        (#"{"name": "a", "pattern": "/a", "destination": "A", "variants": [{"when": {"os": "ios"}, "destination": "B"}]}"#, "unknown-condition"),
        (#"{"name": "a", "pattern": "/a", "destination": "A", "since": "seven"}"#, "invalid-version"),
        (#"{"name": "a", "pattern": "/a"}"#, "missing-field"),
        (#"{"pattern": "/a", "destination": "A"}"#, "missing-field"),
        (#"{"name": "a", "destination": "A"}"#, "missing-field"),
        (#"{"name": "a", "pattern": 7, "destination": "A"}"#, "type-mismatch"),
        (#"{"name": "a", "pattern": "/a", "destination": "A", "inject": {"x": {"param": 3}}}"#, "type-mismatch"),
        (#""not a route""#, "type-mismatch"),
    ] as [(String, String)])
    func reportsEachProblemWithItsCode(_ route: String, _ code: String) {
        #expect(codes([route]).contains(code), "\(route)")
    }

    @Test func reportsEveryProblemNotJustTheFirst() {
        let problems = Fixtures.problems([
            #"{"name": "a", "pattern": "/a", "destination": "A", "presentation": "popover"}"#,
            #"{"name": "a", "pattern": "/b", "destination": "B"}"#,
            #"{"name": "c", "pattern": "/c/:p", "destination": "C", "params": {"p": {"type": "float"}}}"#,
            #"{"name": "d", "pattern": "/d", "destination": "D"}"#,
            #"{"name": "e", "pattern": "/d", "destination": "E"}"#,
        ], extra: #""caseSensitive": "yes", "fallback": 3, "x": ["javascript"]"#)
        #expect(Set(problems.map(\.code)).isSuperset(of: ["unknown-style", "duplicate-name", "unknown-type", "duplicate", "type-mismatch"]))
        #expect(problems.contains { $0.pointer == "/routes/1/name" })
        #expect(problems.contains { $0.pointer == "/caseSensitive" })
        #expect(problems.contains { $0.severity == .warning && $0.code == "unknown-field" && $0.pointer == "/x" })
    }

    /// A table of 1,000 routes or more is decoded in two halves at once: its diagnostics
    /// are those of every route, from both halves, in pointer order, with their lines.
    @Test func aLargeTableReportsProblemsFromBothHalvesInOrder() throws {
        var routes = (0..<1_200).map { #"{"name": "r\#($0)", "pattern": "/r\#($0)/:id", "destination": "R"}"# }
        routes[10] = #"{"name": "r10", "pattern": "/r10", "destination": "R", "presentation": "popover"}"#
        routes[700] = #"{"name": "r700", "pattern": "/r700", "destination": "R", "colour": "blue"}"#
        routes[1_100] = #"{"name": "r1100", "pattern": "/r1100", "destination": "R", "since": "seven"}"#
        routes[1_199] = #"{"name": "r10", "pattern": "/last", "destination": "R"}"#
        let problems = Fixtures.problems(routes)
        #expect(problems.map(\.pointer) == ["/routes/10/presentation", "/routes/700/colour", "/routes/1100/since", "/routes/1199/name"])
        #expect(problems.map(\.code) == ["unknown-style", "unknown-field", "invalid-version", "duplicate-name"])
        // Fixtures put one route per line after three lines of header.
        #expect(problems.map { $0.position?.line } == [14, 704, 1104, 1203])
        // Without the errors, the warning stays and the table loads.
        routes[10] = #"{"name": "r10", "pattern": "/r10", "destination": "R"}"#
        routes[1_100] = #"{"name": "r1100", "pattern": "/r1100", "destination": "R"}"#
        routes[1_199] = #"{"name": "r1199", "pattern": "/last", "destination": "R"}"#
        let loaded = try Fixtures.compile(routes)
        #expect(loaded.warnings.map(\.pointer) == ["/routes/700/colour"])
        #expect(loaded.manifest.routes.map(\.name) == (0..<1_200).map { "r\($0)" })
        #expect(loaded.resolve("/r1150/x").route?.name == "r1150")
    }

    @Test func topLevelProblems() {
        #expect(Fixtures.problems([]).map(\.code) == ["empty-routes"])
        let bad = try? CompiledManifest(json: Array(#"{"version": 0, "hosts": ["a b"], "schemes": ["http", "file", "1x"], "updatedAt": "yesterday", "routes": []}"#.utf8))
        #expect(bad == nil)
        do {
            _ = try CompiledManifest(json: Array(#"{"version": 0, "hosts": ["a b"], "schemes": ["http", "file", "1x"], "updatedAt": "yesterday", "routes": []}"#.utf8))
        } catch {
            #expect(error.diagnostics.map(\.code).sorted() == ["empty-routes", "invalid-host", "invalid-scheme", "invalid-scheme", "invalid-scheme", "invalid-value", "invalid-value"])
        }
    }

    /// `apps`: Apple app IDs, Android packages and fingerprints, each checked at its
    /// pointer; valid ones change nothing clients resolve with, not even the ETag.
    @Test func appsAreCheckedAndLeftOutOfTheETag() throws {
        let route = #"{"name": "a", "pattern": "/a", "destination": "A"}"#
        let fingerprint = Array(repeating: "AB", count: 32).joined(separator: ":")
        let valid = #""apps": {"apple": {"appIDs": ["ABCDE12345.net.artsy.artsy"]}, "android": [{"package": "net.artsy.app", "sha256CertFingerprints": [""# + fingerprint + #""]}]}"#
        let with = try Fixtures.compile([route], extra: valid)
        let without = try Fixtures.compile([route])
        #expect(with.warnings.isEmpty)
        #expect(with.etag == without.etag)
        #expect(with.manifest.apps?.appleAppIDs == ["ABCDE12345.net.artsy.artsy"])
        #expect(with.manifest.apps?.android.first?.package == "net.artsy.app")
        let invalid = #""apps": {"apple": {"appIDs": ["abcde12345.net.x", 3, "ABCDE12345."]}, "android": [{"package": "net", "sha256CertFingerprints": ["ab:cd", ""# + fingerprint + #""]}, {"sha256CertFingerprints": []}, 7]}"#
        let problems = Fixtures.problems([route], extra: invalid).map { "\($0.code) \($0.pointer)" }.sorted()
        #expect(problems == [
            "invalid-app /apps/android/0/package",
            "invalid-app /apps/android/0/sha256CertFingerprints/0",
            "invalid-app /apps/apple/appIDs/0",
            "invalid-app /apps/apple/appIDs/2",
            "missing-field /apps/android/1/package",
            "missing-field /apps/android/1/sha256CertFingerprints",
            "type-mismatch /apps/android/2",
            "type-mismatch /apps/apple/appIDs/1",
        ], "\(problems)")
    }

    @Test func invalidJSONIsOneDiagnosticWithTheOffset() {
        do {
            _ = try CompiledManifest(json: Array(#"{"version": 1,, }"#.utf8))
            Issue.record("accepted")
        } catch {
            #expect(error.diagnostics.map(\.code) == ["invalid-json"])
            #expect(error.diagnostics[0].message.contains("byte 14"))
        }
    }

    @Test func canonicalBytesAreSortedCompactAndFillDefaults() throws {
        let m = try Fixtures.compile([#"{"name": "a", "pattern": "/a/:id", "destination": "A", "params": {"id": {"type": "int"}}}"#])
        let text = String(decoding: m.canonicalBytes, as: UTF8.self)
        #expect(text.hasPrefix(#"{"caseSensitive":false,"fallback":{"destination":"WebView","presentation":{"style":"web"}},"hosts":["#))
        #expect(text.contains(#"{"destination":"A","name":"a","params":{"id":{"required":true,"type":"int"}},"pattern":"/a/:id","presentation":{"style":"push"},"priority":0,"universalLink":true}"#))
        #expect(m.etag == "\"sha256-\(SHA256.hex(m.canonicalBytes))\"")
        // The same manifest written differently has the same ETag.
        let reordered = try CompiledManifest(json: Array(Fixtures.manifestJSON([#"{"destination": "A", "params": {"id": {"type": "int", "required": true}}, "pattern": "/a/:id", "name": "a", "presentation": "push", "priority": 0}"#]).utf8))
        #expect(reordered.etag == m.etag)
    }

    /// The canonical bytes are written member by member in sorted order, not sorted from
    /// a tree: read back and sorted again they must come out the same, and they load as
    /// a manifest with the same ETag.
    @Test(arguments: ["bundled", "rich"])
    func canonicalBytesAreTheirOwnSortedFormAndLoadAgain(_ which: String) throws {
        let m: CompiledManifest
        if which == "bundled" {
            m = try ManifestFile.load(#filePath.components(separatedBy: "/Tests/")[0] + "/Config/routes.json")
        } else {
            m = try Fixtures.compile([
                #"{"name": "b", "patterns": ["/b/:z/:a", "/bb/:z/:a"], "destination": "B", "priority": -2, "universalLink": false, "since": "1.0.0", "until": "9.0.0", "params": {"z": {"type": "enum", "values": ["x", "y"], "default": "x"}, "a": {"type": "regex", "pattern": "^[0-9]+$"}, "É": {"default": {"y": 1, "x": [true, null, 1.5]}}, "B": {"required": true}}, "inject": {"zz": {"param": "a"}, "Z": 3, "aa": {"k": "v", "A": "w"}}, "presentation": {"style": "modal", "zeta": 1, "animated": false, "modalStyle": "form"}, "variants": [{"when": {"platform": "ios", "idiom": ["tablet"], "appVersion": ">=2.0.0"}, "presentation": {"style": "sheet", "b": 1, "a": 2}}, {"when": {"platform": ["android"]}, "destination": "B2"}]}"#,
                #"{"name": "a", "pattern": "/a/*rest", "hosts": ["live.artsy.net"], "destination": "A", "presentation": {"style": "tab", "tab": "home"}}"#,
                #"{"name": "r", "pattern": "/r/:z/:a", "redirect": "/b/:z/:a"}"#,
            ], extra: #""caseSensitive": true, "fallback": {"destination": "W", "presentation": {"style": "web", "z": 1, "a": 0}}, "features": {"z": 1, "a": {"d": 2, "c": 1}}, "messages": [{"b": 1, "a": 2}]"#)
        }
        let reparsed = try JSONParser.parse(m.canonicalBytes)
        #expect(reparsed.serialized(sortedKeys: true) == m.canonicalBytes)
        let reloaded = try CompiledManifest(json: m.canonicalBytes)
        #expect(reloaded.etag == m.etag)
        #expect(reloaded.canonicalBytes == m.canonicalBytes)
    }

    @Test func theBundledManifestIsValid() throws {
        let compiled = try ManifestFile.load(#filePath.components(separatedBy: "/Tests/")[0] + "/Config/routes.json")
        #expect(compiled.manifest.routes.count >= 40)
        #expect(compiled.warnings.isEmpty)
    }
}
