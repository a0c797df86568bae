import Foundation
import Logging
import Switchboard
import SwitchboardTooling
import SwitchboardKit
import SwitchboardServer
import Testing
import TestSupport

/// `switchboard export conformance` run as a process, and the project's own client and
/// server proved against what it writes, byte for byte (docs/clients.md).
@Suite(.serialized)
struct ConformanceVectorTests {
    struct Vectors {
        var head: JSONValue
        var manifest: [UInt8]
        var cases: [(url: String, context: ResolveContext, expect: [UInt8])]
    }

    static let tables = ["Config/routes.json", "Tests/ClientTests/Fixtures/conformance-routes.json"]

    /// Exports the vectors of `table` with the CLI and reads them back: the head, the
    /// manifest's bytes, and each case with its `expect` as the bytes in the file.
    static func export(_ table: String) async throws -> Vectors {
        let folder = try ClientTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("vectors.json").path
        let run = try await Subprocess.runOffThePool(Subprocess.switchboard, ["export", "conformance", "--config", table, "--output", output])
        #expect(run.status == 0, "\(run.stderr)")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
        // The whole file is one JSON document ...
        let document = try JSONParser.parse(bytes)
        var lines = bytes.split(separator: UInt8(ascii: "\n")).map { Array($0) }
        // ... written a line for the head, the manifest, each case.
        let manifestLine = lines[1]
        let manifest = Array(manifestLine[Array("\"manifest\":".utf8).count..<(manifestLine.count - 1)])
        #expect(lines[2] == Array("\"cases\":[".utf8))
        #expect(lines.removeLast() == Array("]}".utf8))
        var cases: [(String, ResolveContext, [UInt8])] = []
        let marker = Array(",\"expect\":".utf8)
        for var line in lines.dropFirst(3) {
            if line.last == UInt8(ascii: ",") { line.removeLast() }
            let item = try JSONParser.parse(line)
            guard case .string(let url)? = item["url"], case .object(let members)? = item["context"] else {
                Issue.record("a case without url or context: \(String(decoding: line, as: UTF8.self))")
                continue
            }
            var context = ResolveContext()
            for member in members {
                guard case .string(let value) = member.value else { continue }
                try context.set(named: member.key, value)
            }
            // `,"expect":` cannot occur inside a JSON string (its quotes would be escaped).
            let at = try #require(line.firstRange(of: marker))
            cases.append((url, context, Array(line[at.upperBound..<(line.count - 1)])))
        }
        return Vectors(head: document, manifest: manifest, cases: cases)
    }

    @Test(arguments: tables)
    func theVectorsSayWhatTheyProve(table: String) async throws {
        let vectors = try await Self.export(table)
        #expect(vectors.head["format"] == .string("switchboard-conformance"))
        #expect(vectors.head["contract"] == .integer(Int64(ConformanceVectors.contractVersion)))
        let compiled = try CompiledManifest(json: vectors.manifest)
        #expect(vectors.head["etag"] == .string(compiled.etag))
        #expect(compiled.canonicalBytes == vectors.manifest)
        let statuses = Set(vectors.cases.compactMap { c in (try? JSONParser.parse(c.expect))?["status"]?.stringValue })
        #expect(statuses == ["matched", "fallback", "external", "rejected"])
        // Every rejection reason is proved, and contexts matter to some cases.
        let reasons = Set(vectors.cases.compactMap { c in (try? JSONParser.parse(c.expect))?["reason"]?.stringValue })
        #expect(reasons.count >= 12, "\(reasons)")
        let contextual = vectors.cases.filter { $0.context != .empty }
        #expect(contextual.contains { c in compiled.resultJSON(compiled.resolve(c.url)) != c.expect },
                "no case whose answer depends on its context")
    }

    @Test(arguments: tables)
    func theClientResolvesEveryVectorOfflineByteForByte(table: String) async throws {
        let vectors = try await Self.export(table)
        let client = SwitchboardClient(configuration: ClientTests.configuration(server: "http://127.0.0.1:1", bundled: vectors.manifest))
        #expect(await client.ready(timeout: .seconds(30)))
        #expect(client.current?.etag == vectors.head["etag"]?.stringValue)
        var failures = 0
        for c in vectors.cases {
            let answer = try #require(client.resolve(c.url, context: c.context))
            if answer.json != c.expect {
                failures += 1
                if failures <= 5 {
                    Issue.record("\(c.url) \(c.context): \(String(decoding: answer.json, as: UTF8.self)) != \(String(decoding: c.expect, as: UTF8.self))")
                }
            }
        }
        #expect(failures == 0, "\(failures) of \(vectors.cases.count) cases differ")
    }

    @Test(arguments: tables)
    func theServerAnswersEveryVectorByteForByte(table: String) async throws {
        let vectors = try await Self.export(table)
        let folder = try ManifestFolder(String(decoding: vectors.manifest, as: UTF8.self))
        let server = try SwitchboardServer(configuration: .init(manifestPath: folder.manifest.path, port: 0, watch: false))
        defer { server.stop(gracePeriod: .zero) }
        let transport = URLSessionTransport()
        var failures = 0
        for c in vectors.cases {
            var query = "url=" + Self.queryEncoded(c.url)
            if let platform = c.context.platform { query += "&platform=" + Self.queryEncoded(platform) }
            if let idiom = c.context.idiom { query += "&idiom=" + Self.queryEncoded(idiom) }
            if let version = c.context.appVersion { query += "&appVersion=" + Self.queryEncoded(version.description) }
            let response = try await transport.get(.init(url: "http://127.0.0.1:\(server.port)/v1/resolve?\(query)", headers: [:],
                                                         timeout: .seconds(10)))
            if response.status != 200 || response.body != c.expect {
                failures += 1
                if failures <= 5 {
                    Issue.record("\(c.url) \(c.context): \(response.status) \(String(decoding: response.body, as: UTF8.self))")
                }
            }
        }
        #expect(failures == 0, "\(failures) of \(vectors.cases.count) cases differ")
    }

    @Test func anOutputThatCannotBeWrittenExits2() throws {
        let run = try Subprocess.run(Subprocess.switchboard, ["export", "conformance", "--output", "/nonexistent/folder/vectors.json"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("cannot write /nonexistent/folder/vectors.json"))
        // Without --output, the document goes to standard output.
        let out = try Subprocess.run(Subprocess.switchboard, ["export", "conformance"])
        #expect(out.status == 0)
        #expect(out.stdout.hasPrefix("{\"format\":\"switchboard-conformance\",\"contract\":1,"))
    }

    /// One ETag, one answer: a server on the file and a server on the canonical manifest
    /// served of it (what replicas and clients load) serve the same Echo document too.
    @Test(arguments: tables)
    func aManifestAndItsCanonicalFormServeTheSameEcho(table: String) async throws {
        let authored = try String(contentsOf: Subprocess.packageRoot.appendingPathComponent(table), encoding: .utf8)
        let canonical = try CompiledManifest(json: Array(authored.utf8)).canonicalBytes
        var bodies: [[UInt8]] = [], etags: [String?] = []
        for text in [authored, String(decoding: canonical, as: UTF8.self)] {
            let folder = try ManifestFolder(text)
            let server = try SwitchboardServer(configuration: .init(manifestPath: folder.manifest.path, port: 0, watch: false))
            defer { server.stop(gracePeriod: .zero) }
            let r = try await URLSessionTransport().get(.init(url: "http://127.0.0.1:\(server.port)/v1/manifest?format=echo",
                                                               headers: [:], timeout: .seconds(10)))
            #expect(r.status == 200)
            bodies.append(r.body)
            etags.append(r.header("ETag"))
        }
        #expect(bodies[0] == bodies[1])
        #expect(etags[0] == etags[1] && etags[0] != nil)
    }

    /// Every byte but the unreserved ones percent-encoded.
    static func queryEncoded(_ text: String) -> String {
        var out = ""
        for b in text.utf8 {
            if (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || "-._~".utf8.contains(b) {
                out.unicodeScalars.append(Unicode.Scalar(b))
            } else {
                out += "%" + String(b, radix: 16, uppercase: true).leftPadded
            }
        }
        return out
    }
}

private extension String {
    var leftPadded: String { count == 1 ? "0" + self : self }
}
