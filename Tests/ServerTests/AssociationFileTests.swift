import Foundation
import Testing
import MicroHTTPD
import Switchboard
import SwitchboardTooling
import TestSupport

/// The association files, served per host from the manifest in service: never drifting
/// from its routes, changed by the reload that changes them.
@Suite(.serialized)
struct AssociationFileTests {
    static let fingerprint = Array(repeating: "14", count: 32).joined(separator: ":")

    static func manifest(version: Int, apps: Bool = true, extraRoute: Bool = false) -> String {
        let appsField = apps ? #""apps": {"apple": {"appIDs": ["ABCDE12345.net.artsy.artsy"]}, "android": [{"package": "net.artsy.app", "sha256CertFingerprints": [""# + fingerprint + #""]}]},"# : ""
        let extra = extraRoute ? #", {"name": "show", "pattern": "/show/:id", "destination": "Show"}"# : ""
        return """
        {"version": \(version), "hosts": ["artsy.net", "live.artsy.net"], \(appsField)
         "routes": [{"name": "artwork", "pattern": "/artwork/:id", "destination": "Artwork"},
                    {"name": "settings", "pattern": "/settings", "destination": "Settings", "universalLink": false},
                    {"name": "auction", "hosts": ["live.artsy.net"], "pattern": "/*rest", "destination": "Auction"}\(extra)]}
        """
    }

    static func get(_ path: String, host: String, port: Int, headers: [(String, String)] = []) throws -> RawHTTP.Response {
        var text = "GET \(path) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        return try RawHTTP.exchange(Array((text + "\r\n").utf8), port: port)
    }

    @Test func eachHostGetsTheFilesItsRoutesMake() throws {
        let live = try LiveServer(Self.manifest(version: 1), watch: true)
        let compiled = try CompiledManifest(json: Array(Self.manifest(version: 1).utf8))
        for host in ["artsy.net", "live.artsy.net"] {
            let aasa = try Self.get("/.well-known/apple-app-site-association", host: host, port: live.port)
            #expect(aasa.status == 200)
            #expect(aasa.header("Content-Type") == "application/json")
            #expect(aasa.header("Location") == nil)
            // The document `export aasa` writes for the host.
            #expect(aasa.body == AssociationFiles.appleAppSiteAssociation(compiled, host: host), "\(host)")
            #expect(try Self.get("/apple-app-site-association", host: host, port: live.port).body == aasa.body)
            let links = try Self.get("/.well-known/assetlinks.json", host: host, port: live.port)
            #expect(links.status == 200)
            let statements = try JSONSerialization.jsonObject(with: Data(links.body)) as? [[String: Any]]
            let target = statements?.first?["target"] as? [String: Any]
            #expect(target?["package_name"] as? String == "net.artsy.app")
            #expect(target?["sha256_cert_fingerprints"] as? [String] == [Self.fingerprint])
        }
        let general = try Self.get("/.well-known/apple-app-site-association", host: "artsy.net", port: live.port)
        let auction = try Self.get("/.well-known/apple-app-site-association", host: "live.artsy.net", port: live.port)
        #expect(general.body != auction.body, "a host's routes make its file")
        #expect(String(decoding: general.body, as: UTF8.self).contains(#"{"/":"/settings","exclude":true"#))
        // Conditional and compressed as the manifest is.
        let etag = try #require(general.header("ETag"))
        #expect(etag.hasPrefix("\"sha256-"))
        #expect(try Self.get("/.well-known/apple-app-site-association", host: "artsy.net", port: live.port,
                             headers: [("If-None-Match", etag)]).status == 304)
        let zipped = try Self.get("/.well-known/apple-app-site-association", host: "artsy.net", port: live.port,
                                  headers: [("Accept-Encoding", "gzip")])
        #expect(zipped.header("Content-Encoding") == "gzip")
        // A host the manifest does not list.
        #expect(try Self.get("/.well-known/apple-app-site-association", host: "example.com", port: live.port).status == 404)
        #expect(try Self.get("/.well-known/assetlinks.json", host: "example.com", port: live.port).status == 404)
        // A reload that changes the routes changes the files in the same swap; the
        // manifest's own ETag does not follow its apps.
        let manifestETag = try Self.get("/v1/manifest", host: "artsy.net", port: live.port).header("ETag")
        try live.folder.replace(Self.manifest(version: 2, extraRoute: true))
        #expect(eventually(within: 5) {
            (try? Self.get("/.well-known/apple-app-site-association", host: "artsy.net", port: live.port).header("ETag")) != etag
        })
        let changed = try Self.get("/.well-known/apple-app-site-association", host: "artsy.net", port: live.port)
        #expect(String(decoding: changed.body, as: UTF8.self).contains(#""/":"/show/*""#))
        #expect(try Self.get("/v1/manifest", host: "artsy.net", port: live.port).header("ETag") != manifestETag)
        let metrics = try RawHTTP.get("/metrics", port: live.port).text
        #expect(metrics.contains(#"endpoint="/.well-known/apple-app-site-association",method="GET",status="200"}"#), "\(metrics)")
        #expect(metrics.contains(#"endpoint="/.well-known/assetlinks.json",method="GET",status="404"}"#))
    }

    @Test func aManifestWithoutAppsServesNone() throws {
        let live = try LiveServer(Self.manifest(version: 1, apps: false))
        #expect(try Self.get("/.well-known/apple-app-site-association", host: "artsy.net", port: live.port).status == 404)
        #expect(try Self.get("/.well-known/assetlinks.json", host: "artsy.net", port: live.port).status == 404)
    }

    /// Behind a trusted proxy, the host it forwarded.
    @Test func behindATrustedProxyTheForwardedHost() throws {
        var http = HTTPDaemon.Configuration()
        http.trustedProxies = try TrustedProxies(parsing: ["127.0.0.1/32"])
        let live = try LiveServer(Self.manifest(version: 1), http: http)
        let headers = [("X-Forwarded-For", "203.0.113.9"), ("X-Forwarded-Host", "live.artsy.net")]
        let forwarded = try Self.get("/.well-known/apple-app-site-association", host: "switchboard.internal", port: live.port, headers: headers)
        let direct = try Self.get("/.well-known/apple-app-site-association", host: "live.artsy.net", port: live.port)
        #expect(forwarded.status == 200)
        #expect(forwarded.body == direct.body)
    }

    /// An AASA past Apple's 128 KB is a manifest error: a reload is refused and the last
    /// good manifest stays.
    @Test func anAssociationFilePastAppleLimitIsRefused() throws {
        let live = try LiveServer(Self.manifest(version: 1), watch: true)
        let routes = (0..<2_500).map { #"{"name": "r\#($0)", "pattern": "/section-\#($0)/:id/a-long-segment-name-\#($0)", "destination": "D"}"# }
        let large = #"{"version": 2, "hosts": ["artsy.net"], "apps": {"apple": {"appIDs": ["ABCDE12345.net.artsy.artsy"]}}, "routes": ["#
            + routes.joined(separator: ",") + "]}"
        try live.folder.replace(large)
        var readiness = ""
        #expect(eventually(within: 5) {
            readiness = (try? RawHTTP.get("/readyz", port: live.port).text) ?? ""
            return readiness.contains("aasa-too-large")
        }, "\(readiness)")
        #expect(try Self.get("/v1/manifest", host: "artsy.net", port: live.port).header("X-Manifest-Version") == "1")
    }
}
