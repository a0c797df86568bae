import Foundation
import Testing
import TestSupport
@testable import SwitchboardServer

/// The OpenAPI document: served, valid OpenAPI 3.1 (openapi-spec-validator), and every
/// path it lists answers.
@Suite(.serialized)
struct OpenAPITests {
    @Test func isServedAndValid() async throws {
        let live = try LiveServer()
        let r = try RawHTTP.get("/openapi.json", port: live.port)
        #expect(r.status == 200)
        #expect(r.header("Content-Type") == "application/json")
        let document = try r.json()
        #expect(document["openapi"] as? String == "3.1.0")
        let paths = try #require(document["paths"] as? [String: Any])
        #expect(Set(paths.keys) == ["/v1/resolve", "/v1/manifest", "/healthz", "/readyz", "/metrics", "/openapi.json",
                                    "/v1/routes", "/v1/validate", "/v1/events", "/", "/ui/{file}",
                                    "/.well-known/apple-app-site-association", "/apple-app-site-association", "/.well-known/assetlinks.json"])
        for path in paths.keys where !["/v1/resolve", "/v1/validate", "/v1/events"].contains(path) {
            let target = path.replacingOccurrences(of: "{file}", with: "explorer.js")
            // The association files: this manifest names no apps (AssociationFileTests serve them).
            let expected = path.contains("apple-app-site-association") || path.contains("assetlinks") ? 404 : 200
            #expect(try RawHTTP.get(target, port: live.port).status == expected, "\(path)")
        }
        #expect(try RawHTTP.request("POST", "/v1/validate", body: Array("/a\n".utf8), port: live.port).status == 200)
        // The stream never ends: its head and first event are what can be checked here.
        let stream = try EventStreamReader(port: live.port)
        #expect(stream.events(2).last?.event == "manifest")
        #expect(stream.head?.status == 200)
        // Validated by the reference validator (PyPI's openapi-spec-validator).
        let file = live.folder.url.appendingPathComponent("openapi.json")
        try Data(r.body).write(to: file)
        let validator = try await Subprocess.runOffThePool(Subprocess.python(), [
            "-c", "import json, sys\nfrom openapi_spec_validator import validate\nvalidate(json.load(open(sys.argv[1])))", file.path,
        ])
        #expect(validator.status == 0, "\(validator.stderr)")
    }
}
