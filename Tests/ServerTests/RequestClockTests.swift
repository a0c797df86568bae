import Foundation
import Testing
import MicroHTTPD
import TestSupport

/// Every byte of a request on the clock, every budget shared per client block, every
/// refusal on record: over real sockets.
@Suite(.serialized)
struct RequestClockTests {
    static func server(bodySeconds: Int = 2, budget: Int = 64 << 20) throws -> LiveServer {
        var http = HTTPDaemon.Configuration()
        http.bodyDeadlineSeconds = bodySeconds
        http.bodyMemoryBudget = budget
        return try LiveServer(http: http)
    }

    /// Sends `head` then `trickle` a byte every 300 ms until the server answers or closes;
    /// what arrived and after how long.
    static func trickle(_ live: LiveServer, _ head: String, _ trickle: UInt8, source: String) throws -> (String, TimeInterval) {
        let connection = try RawHTTP.Connection(port: live.port, source: source, timeoutSeconds: 1)
        connection.send(Array(head.utf8))
        let started = Date()
        var received: [UInt8] = []
        while Date().timeIntervalSince(started) < 12 {
            connection.send([trickle])
            usleep(300_000)
            guard let bytes = connection.receive() else { break }
            received += bytes
            if !bytes.isEmpty, connection.receive() == nil { break }
        }
        return (String(decoding: received, as: UTF8.self), Date().timeIntervalSince(started))
    }

    static let chunked = "POST /v1/resolve HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"

    /// A body trickled a byte at a time never reaches the handler; the deadline of the
    /// whole request answers it 408, which its client reads (the rest it sends is dropped),
    /// and the connection ends. Counted once.
    @Test func aBodyTrickledIsAnswered408AtTheDeadline() throws {
        let live = try Self.server()
        let head = "POST /v1/resolve HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n"
        let (answer, seconds) = try Self.trickle(live, head, UInt8(ascii: " "), source: "127.0.31.1")
        #expect(answer.hasPrefix("HTTP/1.1 408"), "\(answer)")
        #expect(seconds < 5, "\(seconds) s")
        // Another client was served all along.
        #expect(try RawHTTP.get("/healthz", port: live.port).status == 200)
        // Counted once the sweep that cut it lets go of its lock: just after the fact.
        var metrics = ""
        #expect(eventually(within: 5) {
            metrics = (try? RawHTTP.get("/metrics", port: live.port).text) ?? ""
            return metrics.contains(#"switchboard_refusals_total{reason="late"} 1"#)
        }, "\(metrics)")
        #expect(!metrics.contains(#"switchboard_refusals_total{reason="libmicrohttpd"} 1"#), "\(metrics)")
    }

    /// An HTTP/1.0 request with a chunked body is refused as an HTTP/1.1 one is, and closed.
    @Test func http10WithAChunkedBodyIs411AndClosed() throws {
        let live = try Self.server()
        let connection = try RawHTTP.Connection(port: live.port)
        let answer = try connection.exchanging("POST /v1/resolve HTTP/1.0\r\nHost: x\r\nConnection: keep-alive\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n1c\r\n{\"urls\": [\"/artist/banksy\"]}\r\n0\r\n\r\n")
        #expect(answer.status == 411)
        #expect(answer.header("Connection")?.lowercased() == "close")
        #expect(eventually(within: 3) { connection.receive() == nil }, "closed")
    }

    /// A Content-Length past the body limit is a 413 before any byte of the body, however
    /// large: 2^63 and 2^64-1 included (not `100 Continue`); past 2^64, libmicrohttpd
    /// answers 413 itself.
    @Test func anyContentLengthPastTheLimitIs413() throws {
        let live = try Self.server()
        for length in ["1048577", "9223372036854775808", "18446744073709551615", "99999999999999999999999999"] {
            let answer = try RawHTTP.exchange(Array("POST /v1/resolve HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: \(length)\r\n\r\n".utf8),
                                              port: live.port)
            #expect(answer.status == 413, "\(length)")
        }
        // libmicrohttpd's own 413 is counted as one too, when it completes the request,
        // which may come after its client read the answer.
        var metrics = ""
        #expect(eventually(within: 5) {
            metrics = (try? RawHTTP.get("/metrics", port: live.port).text) ?? ""
            return metrics.contains(#"switchboard_refusals_total{reason="content_too_large"} 4"#)
        }, "\(metrics)")
        #expect(metrics.contains(#"switchboard_refusals_total{reason="libmicrohttpd"} 0"#))
    }

    /// The bodies' budget is shared max-min fairly by client block: a block alone takes all
    /// but room for one body (past it, 429); once the budget is full, a block below its fair
    /// share is still given room, and the block holding the most lets its newest body go
    /// (503 at its next piece).
    @Test func theBlockHoldingTheMostOfTheBodiesGivesWay() throws {
        // 4 MiB in all, 1 MiB bodies: one block alone may hold 3 MiB.
        let live = try Self.server(bodySeconds: 10, budget: 4 << 20)
        let body = #"{"urls": ["/artist/banksy"]}"# + String(repeating: " ", count: 1_000_000 - 29)
        func start(_ source: String) throws -> RawHTTP.Connection {
            let connection = try RawHTTP.Connection.postingPart(of: body, sent: 950_000, port: live.port, source: source)
            usleep(200_000)
            return connection
        }
        func finish(_ connection: RawHTTP.Connection) throws -> Int {
            connection.send(Array(body.utf8.dropFirst(950_000)))
            return try connection.response().status
        }
        let mine = try (1...3).map { try start("127.0.41.\($0)") }
        #expect(try start("127.0.41.4").response().status == 429, "past all but room for one body")
        let other = try start("127.0.42.1")
        // Full (3.8 MB held, 0.95 more asked): the third block's share is a third, and the
        // first block, above it, lets its newest body go.
        let third = try start("127.0.43.1")
        #expect(try finish(third) == 200)
        #expect(try finish(other) == 200)
        #expect(try mine.map(finish) == [200, 200, 503])
        let metrics = try RawHTTP.get("/metrics", port: live.port).text
        #expect(metrics.contains(#"switchboard_refusals_total{reason="client_bodies"} 1"#), "\(metrics)")
        #expect(metrics.contains(#"switchboard_refusals_total{reason="bodies"} 1"#), "\(metrics)")
    }

    /// Each refusal the daemon makes is counted by reason (the access log gets a line each:
    /// ServeProcessTests-style below).
    @Test func everyRefusalIsCountedByReason() throws {
        var http = HTTPDaemon.Configuration()
        http.headDeadlineSeconds = 1
        let live = try LiveServer(http: http)
        // HTTP/1.2 is read by libmicrohttpd as 1.1 and refused here; HTTP/2.0, the h2
        // preface, a version that is not one and a target past the connection's memory
        // libmicrohttpd refuses itself, and each is counted by its status all the same.
        #expect(try RawHTTP.exchange(Array("GET /healthz HTTP/1.2\r\nHost: x\r\n\r\n".utf8), port: live.port).status == 505)
        #expect(try RawHTTP.exchange(Array("GET /healthz HTTP/2.0\r\nHost: x\r\n\r\n".utf8), port: live.port).status == 505)
        #expect(try RawHTTP.exchange(Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8), port: live.port).status == 505)
        #expect(try RawHTTP.exchange(Array("GET /healthz HTTP/x.y\r\nHost: x\r\n\r\n".utf8), port: live.port).status == 400)
        #expect(try RawHTTP.exchange(Array("GET /\(String(repeating: "a", count: 13_000)) HTTP/1.1\r\nHost: x\r\n\r\n".utf8), port: live.port).status == 414)
        #expect(try RawHTTP.exchange(Array("GET /\(String(repeating: "a", count: 40_000)) HTTP/1.1\r\nHost: x\r\n\r\n".utf8), port: live.port).status == 414)
        let many = (0..<120).map { "X-\($0): 1\r\n" }.joined()
        #expect(try RawHTTP.exchange(Array("GET /healthz HTTP/1.1\r\nHost: x\r\n\(many)\r\n".utf8), port: live.port).status == 431)
        #expect(try RawHTTP.exchange(Array("POST /v1/resolve HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello".utf8), port: live.port).status == 400)
        // A head that never comes: cut at its deadline.
        let idle = try RawHTTP.Connection(port: live.port, timeoutSeconds: 4)
        idle.send(Array("GET /healthz HTTP/1.1\r\n".utf8))
        #expect(eventually(within: 5) { idle.receive() == nil })
        // Each is counted once, just after the fact: libmicrohttpd's refusals when their
        // request or connection ends, a cut once the sweep that cut it lets go of its lock.
        let counts = ["version": 3, "malformed": 2, "target_too_long": 2, "headers_too_large": 1, "late_head": 1, "libmicrohttpd": 0]
        var metrics = ""
        #expect(eventually(within: 5) {
            metrics = (try? RawHTTP.get("/metrics", port: live.port).text) ?? ""
            return counts.allSatisfy { metrics.contains("switchboard_refusals_total{reason=\"\($0.key)\"} \($0.value)") }
        }, "\(metrics.split(separator: "\n").filter { $0.hasPrefix("switchboard_refusals_total") })")
    }

    /// Answers on the clock too: a client that does not read an answer larger than the
    /// sockets' buffers (a 6 MB manifest) is cut at the answer's deadline and counted as
    /// `slow_reader`; a kept-alive connection left idle is closed at the head's deadline and
    /// counted as nothing.
    @Test func aSlowReaderIsCutAndAnIdleConnectionIsNoRefusal() throws {
        var http = HTTPDaemon.Configuration()
        http.headDeadlineSeconds = 1
        http.answerDeadlineSeconds = 1
        let destination = String(repeating: "D", count: 260)
        let routes = (0..<20_000).map { #"{"name": "r\#($0)", "pattern": "/r\#($0)", "destination": "\#(destination)"}"# }
        let live = try LiveServer(#"{"version": 1, "routes": [\#(routes.joined(separator: ","))]}"#, http: http)
        // Kept alive after its answer, then idle: closed within the deadline and a sweep.
        let kept = try RawHTTP.Connection(port: live.port, timeoutSeconds: 4)
        kept.send(Array("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        #expect(try kept.response().status == 200)
        #expect(eventually(within: 5) { kept.receive() == nil })
        // A reader with a small window that reads nothing of a 6 MB answer.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var small: Int32 = 4096
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(live.port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        #expect(connected == 0)
        let request = Array("GET /v1/manifest HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        #expect(request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) } == request.count)
        var metrics = ""
        #expect(eventually(within: 8) {
            metrics = (try? RawHTTP.get("/metrics", port: live.port).text) ?? ""
            return metrics.contains(#"switchboard_refusals_total{reason="slow_reader"} 1"#)
        }, "\(metrics.split(separator: "\n").filter { $0.contains("refusals_total") })")
        // The idle connection was no refusal, and the cut was counted once.
        #expect(metrics.contains(#"switchboard_refusals_total{reason="late_head"} 0"#))
        #expect(metrics.contains(#"switchboard_refusals_total{reason="libmicrohttpd"} 0"#))
        // Reading on finds the end: the server closed it.
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var total = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            total += n
        }
        #expect(total < 6_000_000, "\(total) bytes read of a manifest of more than 6 MB")
    }

    /// With `--access-log`, a refusal is a line of its own: status, reason, client, target.
    @Test func aRefusalIsAnAccessLogLine() throws {
        let config = Manifests.root.appendingPathComponent("Config/routes.json").path
        let served = try ServeProcessTests.Served(["--config", config, "--access-log"])
        _ = try RawHTTP.exchange(Array("GET /healthz HTTP/1.2\r\nHost: x\r\n\r\n".utf8), port: served.port)
        // A chunked body, refused from its head.
        let chunked = try RawHTTP.exchange(Array((Self.chunked + "2\r\n{}\r\n0\r\n\r\n").utf8), port: served.port)
        #expect(chunked.status == 411)
        #expect(served.stop() == 0)
        let log = served.log + String(decoding: served.stderr.fileHandleForReading.readAll(), as: UTF8.self)
        let lines = try log.split(separator: "\n").compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { $0["message"] as? String == "refused" }
        let line = lines.first
        #expect(line?["status"] as? String == "505", "\(log)")
        #expect(line?["reason"] as? String == "version")
        #expect(line?["client"] as? String == "127.0.0.1")
        #expect(line?["target"] as? String == "/healthz")
        let lengthRequired = lines.dropFirst().first
        #expect(lengthRequired?["status"] as? String == "411", "\(log)")
        #expect(lengthRequired?["reason"] as? String == "length_required")
        #expect(lengthRequired?["method"] as? String == "POST")
        #expect(lengthRequired?["target"] as? String == "/v1/resolve")
    }
}
