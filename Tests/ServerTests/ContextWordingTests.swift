import Foundation
import Switchboard
import Testing
import TestSupport

/// One context parser (`ResolveContext.set`), one wording for the same mistake wherever a
/// context is read: the query string, a JSON body, a cases line, the CLI's flags.
@Suite(.serialized)
struct ContextWordingTests {
    static let notAVersion = #"appVersion "7.x" is not a semantic version such as 7.2.0"#

    @Test func aBadVersionIsWordedAlikeEverywhere() throws {
        let server = try LiveServer()
        let query = try RawHTTP.get("/v1/resolve?url=/a&appVersion=7.x", port: server.port)
        // Problem JSON: the quotes come escaped.
        #expect(query.status == 400 && query.text.contains(Self.notAVersion.replacingOccurrences(of: "\"", with: "\\\"")), "\(query.text)")
        let body = Array(#"{"urls": ["/a"], "context": {"appVersion": "7.x"}}"#.utf8)
        let batch = try RawHTTP.request("POST", "/v1/resolve", body: body, port: server.port)
        #expect(batch.status == 400 && batch.text.contains("/context/appVersion: " + Self.notAVersion.replacingOccurrences(of: "\"", with: "\\\"")),
                "\(batch.text)")
        let cases = try Subprocess.run(Subprocess.switchboard, ["validate", "-"], stdin: Data("/a [appVersion=7.x] -> A\n".utf8))
        #expect(cases.status == 2 && cases.stderr.contains("line 1: " + Self.notAVersion), "\(cases.stderr)")
        let flag = try Subprocess.run(Subprocess.switchboard, ["resolve", "--app-version", "7.x", "/a"])
        #expect(flag.status == 2 && flag.stderr.contains("--app-version: " + Self.notAVersion), "\(flag.stderr)")
    }

    @Test func aRepeatedOrUnknownFieldIsWordedAlike() throws {
        let server = try LiveServer()
        let query = try RawHTTP.get("/v1/resolve?url=/a&platform=ios&platform=web", port: server.port)
        #expect(query.status == 400 && query.text.contains("give platform at most once"))
        let cases = try Subprocess.run(Subprocess.switchboard, ["validate", "-"], stdin: Data("/a [platform=ios platform=web]\n".utf8))
        #expect(cases.stderr.contains("line 1: give platform at most once"), "\(cases.stderr)")
        let unknown = #"unknown context field "colour"; use platform, idiom and appVersion"#
        let body = Array(#"{"urls": ["/a"], "context": {"colour": "red"}}"#.utf8)
        let batch = try RawHTTP.request("POST", "/v1/resolve", body: body, port: server.port)
        #expect(batch.status == 400 && batch.text.contains(unknown.replacingOccurrences(of: "\"", with: "\\\"")), "\(batch.text)")
        let line = try Subprocess.run(Subprocess.switchboard, ["validate", "-"], stdin: Data("/a [colour=red]\n".utf8))
        #expect(line.stderr.contains(unknown), "\(line.stderr)")
    }
}
