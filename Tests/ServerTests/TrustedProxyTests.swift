import Foundation
import Testing
import MicroHTTPD
@testable import SwitchboardServer
import TestSupport

/// Behind a trusted proxy (`serve --trusted-proxy`), over real sockets: the proxy's
/// connections are not held to one block's share, each forwarded client gets its own,
/// a peer not trusted is never believed, and the access log names client and proxy.
@Suite(.serialized)
struct TrustedProxyTests {
    /// A server that trusts 127.0.0.1 alone, each block holding at most `share`.
    static func server(share: Int) throws -> LiveServer {
        var http = HTTPDaemon.Configuration()
        http.perIPConnectionLimit = share
        http.trustedProxies = try TrustedProxies(parsing: ["127.0.0.1/32"])
        return try LiveServer(http: http)
    }

    /// `/metrics`, scraped from a block of its own that is not the proxy's.
    static func metrics(_ live: LiveServer) throws -> String {
        try RawHTTP.Connection(port: live.port, source: "127.0.8.1").exchanging("GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").text
    }

    /// Sends a poll that waits `wait` seconds, as client `forwardedFor`, on a connection
    /// of its own from `source`.
    static func poll(_ live: LiveServer, from source: String = "127.0.0.1", forwardedFor: String?, wait: Int = 2) throws -> RawHTTP.Connection {
        let connection = try RawHTTP.Connection(port: live.port, source: source)
        var request = "GET /v1/manifest HTTP/1.1\r\nHost: x\r\nIf-None-Match: \(live.server.etag)\r\nPrefer: wait=\(wait)\r\n"
        if let forwardedFor { request += "X-Forwarded-For: \(forwardedFor)\r\n" }
        connection.send(Array((request + "\r\n").utf8))
        return connection
    }

    /// A proxy's connections are many clients': more than one block's share are all held,
    /// one share per forwarded block; past a forwarded block's share its polls are
    /// answered at once, never refused.
    @Test func eachForwardedClientHasItsOwnShare() throws {
        let live = try Self.server(share: 4)
        let started = Date()
        // 8 connections from the proxy, for 8 clients of 8 blocks: all held.
        let spread = try (0..<8).map { i in try Self.poll(live, forwardedFor: "198.51.\(i).7") }
        // 6 from the proxy for one block (6 addresses of one /24): 4 held, 2 answered at once.
        let crowded = try (0..<6).map { i in try Self.poll(live, forwardedFor: "203.0.113.\(10 + i)") }
        let crowdedAnswers = try crowded.map { try $0.response() }
        let spreadAnswers = try spread.map { try $0.response() }
        #expect(spreadAnswers.allSatisfy { $0.status == 304 && $0.header("Preference-Applied") == "wait=2" },
                "\(spreadAnswers.map { ($0.status, $0.header("Preference-Applied") ?? "-") })")
        #expect(crowdedAnswers.allSatisfy { $0.status == 304 })
        #expect(crowdedAnswers.filter { $0.header("Preference-Applied") != nil }.count == 4, "the block's share held")
        #expect(Date().timeIntervalSince(started) >= 1.9)
        let metrics = try RawHTTP.get("/metrics", port: live.port).text
        #expect(metrics.contains(#"switchboard_share_refusals_total{share="live",holder="client"} 2"#))
        #expect(metrics.contains("switchboard_forwarded_requests_total 14"), "14 polls through the proxy (a scrape counts once answered)")
    }

    /// A peer that is not trusted is its own client whatever it says: its forwarded
    /// headers do not lift it past its block's share.
    @Test func aDirectClientsForwardedHeadersAreNotBelieved() throws {
        let live = try Self.server(share: 2)
        let held = try (0..<2).map { i in try Self.poll(live, from: "127.0.9.1", forwardedFor: "198.51.\(i).7", wait: 3) }
        // Both held, so both counted (a connection is counted just after it is accepted).
        #expect(eventually(within: 10) { (try? Self.metrics(live))?.contains("switchboard_held_polls 2\n") == true })
        // Its block holds its two connections: a third, whatever it forwards, is cut at accept.
        let third = try RawHTTP.Connection(port: live.port, source: "127.0.9.2")
        third.send(Array("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 192.0.2.1\r\nForwarded: for=192.0.2.2\r\n\r\n".utf8))
        #expect(throws: (any Error).self) { try third.response() }
        _ = held
        let metrics = try Self.metrics(live)
        #expect(metrics.contains("switchboard_forwarded_requests_total 0"), "none came through the proxy")
        #expect(metrics.contains(#"switchboard_share_refusals_total{share="connections",holder="client"} 1"#))
    }

    /// `serve --trusted-proxy` (or SWITCHBOARD_TRUSTED_PROXIES): the access log names the
    /// forwarded client and the proxy; a direct client is named alone, its headers unread.
    @Test func theAccessLogNamesTheForwardedClientAndTheProxy() throws {
        let config = Manifests.root.appendingPathComponent("Config/routes.json").path
        for (flags, environment) in [(["--trusted-proxy", "127.0.0.1/32", "--trusted-proxy", "fd00::/8"], [String: String]()),
                                     ([], ["SWITCHBOARD_TRUSTED_PROXIES": "fd00::/8, 127.0.0.1"])] {
            let served = try ServeProcessTests.Served(["--config", config, "--access-log"] + flags, environment: environment)
            let forwarded = try RawHTTP.Connection(port: served.port)
            _ = try forwarded.exchanging("GET /v1/resolve?url=/artist/banksy HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 198.51.100.1, [2001:db8::7]:443\r\n\r\n")
            let direct = try RawHTTP.Connection(port: served.port, source: "127.0.0.2")
            _ = try direct.exchanging("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 192.0.2.1\r\n\r\n")
            #expect(served.stop() == 0)
            let log = served.log + String(decoding: served.stderr.fileHandleForReading.readAll(), as: UTF8.self)
            let lines = try log.split(separator: "\n").compactMap { line -> [String: Any]? in
                let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                return object?["message"] as? String == "request" ? object : nil
            }
            #expect(lines.count == 2, "\(log)")
            #expect(lines.first?["client"] as? String == "2001:db8::7")
            #expect(lines.first?["proxy"] as? String == "127.0.0.1")
            #expect(lines.last?["client"] as? String == "127.0.0.2")
            #expect(lines.last?["proxy"] == nil)
            #expect(log.contains(#""trusted_proxies":"127.0.0.1/32,fd00::/8""#) || log.contains(#""trusted_proxies":"fd00::/8,127.0.0.1/32""#))
        }
    }

    /// docs/operations.md's recipes, on the headers each proxy sends: the peer is a
    /// loopback address standing for the proxy (no ingress, mesh or CDN runs here), the
    /// trusted ranges are the recipe's with that address added.
    @Test func theDeploymentRecipesNameTheClient() throws {
        struct Recipe {
            let name: String
            var flags: [String] = []
            let trusted: [String]
            let peer: String
            let headers: String
            let client: String
        }
        let recipes = [
            // ingress-nginx behind a cloud load balancer (use-forwarded-headers): the
            // balancer appends the viewer, the controller appends the balancer.
            Recipe(name: "ingress-nginx", trusted: ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "127.0.0.6/32", "fd00::/8", "127.0.1.0/24"],
                   peer: "127.0.1.10", headers: "X-Forwarded-For: 198.51.100.1, 203.0.113.7, 10.0.3.4\r\n", client: "203.0.113.7"),
            // An Istio sidecar hands the connection over from 127.0.0.6; the gateway set the header.
            Recipe(name: "istio", trusted: ["127.0.0.6/32", "10.0.0.0/8"], peer: "127.0.0.6",
                   headers: "X-Forwarded-For: 203.0.113.7\r\nX-Envoy-External-Address: 203.0.113.7\r\n", client: "203.0.113.7"),
            // In-mesh calls carry no header: the sidecar's own address is the client.
            Recipe(name: "istio, in-mesh", trusted: ["127.0.0.6/32"], peer: "127.0.0.6", headers: "", client: "127.0.0.6"),
            // CloudFront in front of an ALB: the viewer, then the edge; the ALB is the peer.
            Recipe(name: "cloudfront", trusted: ["130.176.0.0/16", "127.0.2.0/24"], peer: "127.0.2.9",
                   headers: "X-Forwarded-For: 2001:db8:85a3::8a2e:370:7334, 130.176.17.3\r\n", client: "2001:db8:85a3::8a2e:370:7334"),
            // A proxy that sets Forwarded (HAProxy's option forwarded, RFC 7239).
            Recipe(name: "forwarded", flags: ["--forwarded-header", "forwarded"], trusted: ["127.0.3.0/24"], peer: "127.0.3.1",
                   headers: "Forwarded: for=\"[2001:db8::17]:4711\";proto=https\r\nX-Forwarded-For: 192.0.2.200\r\n", client: "2001:db8::17"),
        ]
        let config = Manifests.root.appendingPathComponent("Config/routes.json").path
        for recipe in recipes {
            let served = try ServeProcessTests.Served(["--config", config, "--access-log"] + recipe.flags
                                                      + recipe.trusted.flatMap { ["--trusted-proxy", $0] })
            let connection = try RawHTTP.Connection(port: served.port, source: recipe.peer)
            let answer = try connection.exchanging("GET /healthz HTTP/1.1\r\nHost: x\r\n\(recipe.headers)\r\n")
            #expect(answer.status == 200)
            #expect(served.stop() == 0)
            let log = served.log + String(decoding: served.stderr.fileHandleForReading.readAll(), as: UTF8.self)
            let line = try log.split(separator: "\n").compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
                .first { $0["message"] as? String == "request" }
            #expect(line?["client"] as? String == recipe.client, "\(recipe.name): \(line ?? [:])")
        }
    }

    /// One forwarded header (docs/operations.md, "Behind a proxy"): a proxy appends to one and passes the other through
    /// from the client, so only the configured one is read. The client sends both, the
    /// proxy (127.0.0.1) appends its view to X-Forwarded-For (the default) or writes
    /// `Forwarded` (`--forwarded-header forwarded`), and the access log names the client
    /// the proxy saw either way, not the one the client claimed.
    @Test func onlyTheConfiguredForwardedHeaderIsRead() throws {
        let config = Manifests.root.appendingPathComponent("Config/routes.json").path
        let claimed = "Forwarded: for=192.0.2.66\r\nX-Forwarded-For: 192.0.2.77\r\n"
        let cases: [(flags: [String], environment: [String: String], request: String, client: String)] = [
            // HAProxy's option forwardfor, Caddy, Apache: the client's Forwarded passed through.
            ([], [:], "Forwarded: for=192.0.2.66\r\nX-Forwarded-For: 192.0.2.77, 203.0.113.9\r\n", "203.0.113.9"),
            // A proxy that writes Forwarded: the client's X-Forwarded-For passed through.
            (["--forwarded-header", "forwarded"], [:], "X-Forwarded-For: 192.0.2.77\r\nForwarded: for=192.0.2.66, for=203.0.113.9\r\n", "203.0.113.9"),
            ([], ["SWITCHBOARD_FORWARDED_HEADER": "Forwarded"], "X-Forwarded-For: 192.0.2.77\r\nForwarded: for=\"[2001:db8::9]\"\r\n", "2001:db8::9"),
            // The proxy wrote nothing in the configured header: the proxy is the client.
            (["--forwarded-header", "forwarded"], [:], "X-Forwarded-For: 192.0.2.77\r\n", "127.0.0.1"),
        ]
        for (flags, environment, request, client) in cases {
            let served = try ServeProcessTests.Served(["--config", config, "--access-log", "--trusted-proxy", "127.0.0.1"] + flags,
                                                      environment: environment)
            _ = try RawHTTP.Connection(port: served.port).exchanging("GET /healthz HTTP/1.1\r\nHost: x\r\n\(request)\r\n")
            let metrics = try RawHTTP.Connection(port: served.port, source: "127.0.8.1")
                .exchanging("GET /metrics HTTP/1.1\r\nHost: x\r\n\(claimed)Connection: close\r\n\r\n").text
            #expect(served.stop() == 0)
            let log = served.log + String(decoding: served.stderr.fileHandleForReading.readAll(), as: UTF8.self)
            let lines = try log.split(separator: "\n").compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            let requests = lines.filter { $0["message"] as? String == "request" }
            #expect(requests.first?["client"] as? String == client, "\(flags) \(environment): \(requests)")
            // The scrape came from a peer not trusted: its headers unread, its address the client.
            #expect(requests.last?["client"] as? String == "127.0.8.1")
            let forwarded = client == "127.0.0.1" ? 0 : 1
            #expect(metrics.contains("switchboard_forwarded_requests_total \(forwarded)\n"), "only requests whose client the header named")
        }
    }

    /// Forwarded headers from a peer not trusted are a proxy nobody named: the server says
    /// so once a minute, naming the peer and the header, and reads neither.
    @Test func aPeerNotTrustedThatForwardsIsWarnedOfOnce() throws {
        let config = Manifests.root.appendingPathComponent("Config/routes.json").path
        let served = try ServeProcessTests.Served(["--config", config, "--access-log"])
        for i in 0..<5 {
            let connection = try RawHTTP.Connection(port: served.port, source: "127.0.7.\(i + 1)")
            let answer = try connection.exchanging("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 198.51.100.\(i)\r\n\r\n")
            #expect(answer.status == 200)
        }
        #expect(served.stop() == 0)
        let log = served.log + String(decoding: served.stderr.fileHandleForReading.readAll(), as: UTF8.self)
        let warnings = log.split(separator: "\n").filter { $0.contains("is not a trusted proxy") }
        #expect(warnings.count == 1, "\(log.suffix(3000))")
        #expect(warnings.first?.contains("127.0.7.1 sent X-Forwarded-For") == true)
        #expect(warnings.first?.contains("--trusted-proxy") == true)
        #expect(!log.contains(#""client":"198.51.100."#), "never believed")
    }

    @Test func aRangeThatIsNoneOrEveryAddressIsRefusedAtStart() throws {
        let result = try Subprocess.run(Subprocess.switchboard, ["serve", "--trusted-proxy", "10.0.0/8", "--port", "0"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("'10.0.0/8' is not an address range"))
        for everything in [["--trusted-proxy", "0.0.0.0/0"], ["--trusted-proxy", "10.0.0.0/8", "--trusted-proxy", "::/0"]] {
            let refused = try Subprocess.run(Subprocess.switchboard, ["serve", "--port", "0"] + everything)
            #expect(refused.status == 2)
            #expect(refused.stderr.contains("trusts every address") && refused.stderr.contains("pod range"), "\(refused.stderr)")
        }
        let fromEnvironment = try Subprocess.run(Subprocess.switchboard, ["serve", "--port", "0"],
                                                 environment: ["SWITCHBOARD_TRUSTED_PROXIES": "10.0.0.0/8,0.0.0.0/0"])
        #expect(fromEnvironment.status == 2 && fromEnvironment.stderr.contains("'0.0.0.0/0' trusts every address"))
        let origin = try Subprocess.run(Subprocess.switchboard, ["serve", "--cors-origin", "https://app.example.com/path", "--port", "0"])
        #expect(origin.status == 2)
        #expect(origin.stderr.contains("is not an origin"))
    }

    /// Until a proxy is named, a block that takes its share is logged once a minute with a
    /// line that names it and `--trusted-proxy`: behind a proxy that line explains the 502s.
    @Test func aBlockThatTakesItsShareIsLoggedOnceNamingTrustedProxy() throws {
        let config = Manifests.root.appendingPathComponent("Config/routes.json").path
        let served = try ServeProcessTests.Served(["--config", config])
        // The default share is 256 connections a block: 260 from 127.0.0.1.
        var open: [RawHTTP.Connection] = []
        for _ in 0..<260 { open.append(try RawHTTP.Connection(port: served.port, timeoutSeconds: 2)) }
        usleep(500_000)
        #expect(served.stop() == 0)
        open.removeAll()
        let log = served.log + String(decoding: served.stderr.fileHandleForReading.readAll(), as: UTF8.self)
        let warnings = log.split(separator: "\n").filter { $0.contains("--trusted-proxy") }
        #expect(warnings.count == 1, "\(log.suffix(2000))")
        #expect(warnings.first?.contains("127.0.0.0/24") == true)
    }
}

/// `serve --cors-origin`: a browser page of an allowed origin may read the read-only
/// endpoints and poll the manifest; nothing else changes, and without the flag nothing does.
struct CrossOriginTests {
    static let app = "https://app.example.com"

    @Test func aPreflightAllowsWhatAPollSends() throws {
        let live = try LiveServer(crossOrigin: try CrossOrigin(parsing: [Self.app]))
        for path in ["/v1/manifest", "/v1/resolve?url=/artist/x", "/v1/events", "/v1/routes"] {
            let preflight = try RawHTTP.request("OPTIONS", path, headers: [("Origin", Self.app), ("Access-Control-Request-Method", "GET"),
                                                                           ("Access-Control-Request-Headers", "if-none-match,prefer")],
                                                port: live.port)
            #expect(preflight.status == 204, "\(path)")
            #expect(preflight.header("Access-Control-Allow-Origin") == Self.app)
            #expect(preflight.header("Access-Control-Allow-Methods") == "GET, HEAD")
            let allowed = (preflight.header("Access-Control-Allow-Headers") ?? "").lowercased()
            #expect(allowed.contains("if-none-match") && allowed.contains("prefer"))
            #expect(preflight.header("Vary") == "Origin")
        }
        // Another origin, a write, an endpoint that writes: answered as without CORS.
        let stranger = try RawHTTP.request("OPTIONS", "/v1/manifest", headers: [("Origin", "https://evil.example"), ("Access-Control-Request-Method", "GET")], port: live.port)
        #expect(stranger.status == 405)
        #expect(stranger.header("Access-Control-Allow-Origin") == nil)
        let post = try RawHTTP.request("OPTIONS", "/v1/resolve", headers: [("Origin", Self.app), ("Access-Control-Request-Method", "POST")], port: live.port)
        #expect(post.status == 405)
        let validate = try RawHTTP.request("OPTIONS", "/v1/validate", headers: [("Origin", Self.app), ("Access-Control-Request-Method", "GET")], port: live.port)
        #expect(validate.status == 405)
    }

    @Test func answersToAnAllowedOriginExposeWhatAPollerReads() throws {
        let live = try LiveServer(crossOrigin: try CrossOrigin(parsing: [Self.app]))
        let manifest = try RawHTTP.get("/v1/manifest", headers: [("Origin", Self.app)], port: live.port)
        #expect(manifest.status == 200)
        #expect(manifest.header("Access-Control-Allow-Origin") == Self.app)
        let exposed = manifest.header("Access-Control-Expose-Headers") ?? ""
        for name in ["ETag", "Preference-Applied", "X-Manifest-Version"] { #expect(exposed.contains(name)) }
        #expect(manifest.headers.contains { $0 == ("Vary", "Origin") })
        // A held poll's answer carries them too.
        let poll = try RawHTTP.get("/v1/manifest", headers: [("Origin", Self.app), ("If-None-Match", live.server.etag), ("Prefer", "wait=1")],
                                   port: live.port)
        #expect(poll.status == 304)
        #expect(poll.header("Preference-Applied") == "wait=1")
        #expect(poll.header("Access-Control-Allow-Origin") == Self.app)
        // Another origin: no grant, but the Vary a shared cache needs.
        let stranger = try RawHTTP.get("/v1/manifest", headers: [("Origin", "https://evil.example")], port: live.port)
        #expect(stranger.header("Access-Control-Allow-Origin") == nil)
        #expect(stranger.headers.contains { $0 == ("Vary", "Origin") })
        // Not for what writes or for the rest.
        let batch = try RawHTTP.request("POST", "/v1/resolve", headers: [("Origin", Self.app)], body: Array(#"{"urls":["/a"]}"#.utf8), port: live.port)
        #expect(batch.header("Access-Control-Allow-Origin") == nil)
        #expect(try RawHTTP.get("/metrics", headers: [("Origin", Self.app)], port: live.port).header("Access-Control-Allow-Origin") == nil)
    }

    @Test func anyOriginIsAStar() throws {
        let live = try LiveServer(crossOrigin: try CrossOrigin(parsing: ["*"]))
        let resolve = try RawHTTP.get("/v1/resolve?url=/artist/x", headers: [("Origin", "http://localhost:3000")], port: live.port)
        #expect(resolve.header("Access-Control-Allow-Origin") == "*")
        #expect(!resolve.headers.contains { $0.0 == "Vary" && $0.1 == "Origin" })
    }

    @Test func withoutTheFlagNothingChanges() throws {
        let live = try LiveServer()
        let preflight = try RawHTTP.request("OPTIONS", "/v1/manifest", headers: [("Origin", Self.app), ("Access-Control-Request-Method", "GET")], port: live.port)
        #expect(preflight.status == 405)
        let manifest = try RawHTTP.get("/v1/manifest", headers: [("Origin", Self.app)], port: live.port)
        #expect(manifest.header("Access-Control-Allow-Origin") == nil)
        #expect(!manifest.headers.contains { $0.0 == "Vary" && $0.1 == "Origin" })
    }

    @Test func originsAreReadAsBrowsersSendThem() throws {
        #expect(try CrossOrigin(parsing: ["HTTPS://App.Example.com:8443"]).origins == ["https://app.example.com:8443"])
        for bad in ["app.example.com", "https://", "https://app.example.com/", "https://a.example/x", "https://u@a.example", "null x"] {
            #expect(throws: CrossOrigin.InvalidOrigin.self, "\(bad)") { try CrossOrigin(parsing: [bad]) }
        }
    }
}
