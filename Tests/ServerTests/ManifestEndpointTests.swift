import Foundation
import Testing
import TestSupport
@testable import SwitchboardServer

@Suite(.serialized)
final class ManifestEndpointTests {
    let live: LiveServer
    var server: SwitchboardServer { live.server }

    init() throws {
        live = try LiveServer()
    }

    @Test func servesTheCanonicalManifestWithCacheHeaders() throws {
        let r = try RawHTTP.get("/v1/manifest", port: server.port)
        #expect(r.status == 200)
        let etag = try #require(r.header("ETag"))
        #expect(etag.wholeMatch(of: /"sha256-[0-9a-f]{64}"/) != nil)
        #expect(etag == server.etag)
        #expect(r.header("Last-Modified") == "Fri, 20 Nov 2026 10:00:00 GMT")
        #expect(r.header("X-Manifest-Version") == "1")
        #expect(r.header("Cache-Control") == "public, max-age=60")
        #expect(r.header("Vary") == "Accept-Encoding")
        let json = try r.json()
        #expect((json["routes"] as? [Any])?.count == 52)
        // Manifest data is never read by a browser as anything but what it is: every typed
        // answer says so, prepared (this one) or made per request (a resolve, a problem).
        #expect(r.header("X-Content-Type-Options") == "nosniff")
        for target in ["/v1/resolve?url=/artwork/x", "/v1/resolve", "/nowhere"] {
            let answer = try RawHTTP.get(target, port: server.port)
            #expect(answer.header("X-Content-Type-Options") == "nosniff", "\(target): \(answer.status)")
        }
        #expect(Array(json.keys).sorted() == ["caseSensitive", "fallback", "features", "hosts", "messages", "routes", "schemes", "updatedAt", "version"])
        // Canonical: compact with sorted keys.
        #expect(r.text.hasPrefix(#"{"caseSensitive":false,"fallback":{"destination":"WebView","presentation":{"style":"web"}},"features":"#))
    }

    @Test(arguments: [true, false])
    func answers304WhileTheETagStillHolds(_ weak: Bool) throws {
        let etag = server.etag
        let r = try RawHTTP.get("/v1/manifest", headers: [("If-None-Match", "\"other\", \(weak ? "W/" : "")\(etag)")], port: server.port)
        #expect(r.status == 304)
        #expect(r.body.isEmpty)
        #expect(r.header("ETag") == etag)
        #expect(try RawHTTP.get("/v1/manifest", headers: [("If-None-Match", "*")], port: server.port).status == 304)
        #expect(try RawHTTP.get("/v1/manifest", headers: [("If-None-Match", "\"sha256-stale\"")], port: server.port).status == 200)
    }

    @Test func answers304ForIfModifiedSince() throws {
        #expect(try RawHTTP.get("/v1/manifest", headers: [("If-Modified-Since", "Fri, 20 Nov 2026 10:00:00 GMT")], port: server.port).status == 304)
        #expect(try RawHTTP.get("/v1/manifest", headers: [("If-Modified-Since", "Fri, 20 Nov 2026 09:59:59 GMT")], port: server.port).status == 200)
        #expect(try RawHTTP.get("/v1/manifest", headers: [("If-Modified-Since", "garbage")], port: server.port).status == 200)
        // If-None-Match wins over If-Modified-Since.
        #expect(try RawHTTP.get("/v1/manifest", headers: [("If-None-Match", "\"x\""), ("If-Modified-Since", "Fri, 20 Nov 2026 10:00:00 GMT")],
                                port: server.port).status == 200)
    }

    @Test func gzipsWhenAcceptedAndTheBytesDecompressToTheSameManifest() throws {
        let plain = try RawHTTP.get("/v1/manifest", port: server.port)
        let zipped = try RawHTTP.get("/v1/manifest", headers: [("Accept-Encoding", "br;q=1.0, gzip;q=0.8")], port: server.port)
        #expect(zipped.header("Content-Encoding") == "gzip")
        #expect(zipped.header("ETag") == plain.header("ETag"))
        #expect(zipped.body.count < plain.body.count)
        #expect(try gunzip(zipped.body) == plain.body)
        #expect(try RawHTTP.get("/v1/manifest", headers: [("Accept-Encoding", "gzip;q=0")], port: server.port).header("Content-Encoding") == nil)
    }

    @Test func headSendsHeadersOnly() throws {
        let r = try RawHTTP.request("HEAD", "/v1/manifest", port: server.port)
        #expect(r.status == 200)
        #expect(r.header("ETag") == server.etag)
        #expect(r.body.isEmpty)
    }

    @Test func echoFormatListsOneEntryPerPattern() throws {
        let r = try RawHTTP.get("/v1/manifest?format=echo", port: server.port)
        let json = try r.json()
        #expect(Set(json.keys) == ["id", "name", "created_at", "updated_at", "features", "messages", "routes"])
        let routes = try #require(json["routes"] as? [[String: String]])
        #expect(routes.count == 59)
        #expect(routes.contains { $0 == ["name": "gene", "path": "/category/:id"] })
        #expect(try RawHTTP.get("/v1/manifest?format=yaml", port: server.port).status == 400)
    }

    @Test func healthReadinessAndMetrics() throws {
        #expect(try RawHTTP.get("/healthz", port: server.port).status == 200)
        let ready = try RawHTTP.get("/readyz", port: server.port).json()
        #expect(ready["version"] as? Int == 1)
        #expect(ready["etag"] as? String == server.etag)
        #expect(ready["loadedAt"] as? String != nil)
        #expect(ready["lastReloadError"] is NSNull)
        _ = try RawHTTP.get("/v1/resolve?url=/artist/x", port: server.port)
        let metrics = try RawHTTP.get("/metrics", port: server.port)
        #expect(metrics.header("Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
        for line in ["switchboard_http_requests_total{endpoint=\"/v1/resolve\",method=\"GET\",status=\"200\"} ",
                     "switchboard_http_requests_total{endpoint=\"/healthz\",method=\"GET\",status=\"200\"} 1\n",
                     "switchboard_http_requests_total{endpoint=\"/readyz\",method=\"GET\",status=\"200\"} 1\n",
                     "switchboard_resolve_outcomes_total{status=\"matched\"} ", "switchboard_manifest_version 1",
                     "switchboard_http_request_duration_seconds_bucket{le=\"+Inf\"} ", "switchboard_manifest_reloads_total 0",
                     "switchboard_manifest_reload_failures_total 0"] {
            #expect(metrics.text.contains(line), "\(line)")
        }
    }

    @Test func unknownPathsAre404AndWrongMethods405() throws {
        let missing = try RawHTTP.get("/v2/resolve", port: server.port)
        #expect(missing.status == 404)
        #expect(missing.header("Content-Type") == "application/problem+json")
        let wrong = try RawHTTP.request("DELETE", "/v1/manifest", port: server.port)
        #expect(wrong.status == 405)
        #expect(wrong.header("Allow") == "GET, HEAD")
        #expect(try RawHTTP.request("PUT", "/v1/resolve", port: server.port).header("Allow") == "GET, HEAD, POST")
    }

    func gunzip(_ bytes: [UInt8]) throws -> [UInt8] {
        [UInt8](try Subprocess.run(Subprocess.tool("gzip", package: "gzip"), ["-dc"], stdin: Data(bytes)).stdoutData)
    }
}
