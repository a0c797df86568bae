import Foundation
import Testing
import TestSupport

/// `GET /v1/manifest?format=echo` read the way Eigen's Echo client reads it: a HEAD for
/// `Last-Modified` (parsed with `E, dd MMM yyyy HH:mm:ss zzz`), then a GET whose
/// `features` are `[{"name", "value": Bool}]`, `messages` `[{"name", "content": String}]`
/// and `routes` `[{"name", "path"}]`; and a table imported with `switchboard import echo`
/// comes back as it was.
@Suite(.serialized)
struct EchoClientTests {
    static let fixture = Subprocess.packageRoot.appendingPathComponent("Tests/CLITests/Fixtures/echo-eigen.json")

    struct EchoDocument {
        var lastModified: Date
        var features: [(name: String, value: Bool)]
        var messages: [(name: String, content: String)]
        var routes: [(name: String, path: String)]
    }

    /// What Eigen's client does, step by step; any other shape fails here.
    static func fetch(port: Int) throws -> EchoDocument {
        let head = try RawHTTP.request("HEAD", "/v1/manifest?format=echo", port: port)
        #expect(head.status == 200)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "E, dd MMM yyyy HH:mm:ss zzz"
        let header = try #require(head.header("Last-Modified"))
        let lastModified = try #require(formatter.date(from: header), "Last-Modified \(header) is not E, dd MMM yyyy HH:mm:ss zzz")
        let body = try RawHTTP.get("/v1/manifest?format=echo", port: port).json()
        let features = try #require(body["features"] as? [[String: Any]]).map { item in
            (name: item["name"] as? String ?? "", value: try #require(item["value"] as? Bool, "feature value is not a boolean: \(item)"))
        }
        let messages = try #require(body["messages"] as? [[String: Any]]).map { item in
            (name: item["name"] as? String ?? "", content: try #require(item["content"] as? String, "message content is not a string: \(item)"))
        }
        let routes = try #require(body["routes"] as? [[String: String]]).map { (name: $0["name"] ?? "", path: $0["path"] ?? "") }
        return EchoDocument(lastModified: lastModified, features: features, messages: messages, routes: routes)
    }

    @Test func theBundledManifestReadsAsEchoClientsReadIt() throws {
        let live = try LiveServer()
        let document = try Self.fetch(port: live.port)
        #expect(document.lastModified == Date(timeIntervalSince1970: 1_795_168_800))
        #expect(document.features.map(\.name) == ["arAuctionsRedesign", "arShowViewingRooms"])
        #expect(document.messages.first?.content == "6.0.0")
        #expect(document.routes.contains { $0 == ("artwork", "/artwork/:id") })
    }

    @Test func anImportedEchoTableComesBackAsItWas() throws {
        let imported = try Subprocess.run(Subprocess.switchboard, ["import", "echo", Self.fixture.path, "--scheme", "artsy"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let live = try LiveServer(imported.stdout)
        let document = try Self.fetch(port: live.port)
        let original = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: Self.fixture)) as? [String: Any])
        let paths = try #require(original["routes"] as? [[String: String]]).filter { $0["path"]?.hasPrefix("/") == true }
        #expect(document.routes.map(\.name) == paths.map { $0["name"]! })
        #expect(document.routes.map(\.path) == paths.map { $0["path"]! })
        #expect(document.features.map(\.name) == ["ipad_vir", "iphone_vir"] && document.features.map(\.value) == [false, true])
        #expect(document.messages.map(\.content) == ["3"])
        #expect(document.lastModified == Date(timeIntervalSince1970: 1_488_219_696))
    }

    @Test func aManifestWithoutFeaturesOrMessagesServesEmptyArrays() throws {
        let live = try LiveServer(Manifests.small(version: 1))
        let body = try RawHTTP.get("/v1/manifest?format=echo", port: live.port).json()
        #expect((body["features"] as? [Any])?.isEmpty == true && (body["messages"] as? [Any])?.isEmpty == true)
    }
}
