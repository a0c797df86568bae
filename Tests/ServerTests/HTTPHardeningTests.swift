import Foundation
import Testing
import TestSupport
@testable import SwitchboardServer

@Suite(.serialized)
final class HTTPHardeningTests {
    let live: LiveServer
    var server: SwitchboardServer { live.server }

    init() throws {
        live = try LiveServer()
    }

    func alive() throws -> Bool { try RawHTTP.get("/healthz", port: server.port).status == 200 }

    @Test func refusesDuplicateContentLength() throws {
        let request = "POST /v1/resolve HTTP/1.1\r\nHost: x\r\nContent-Length: 13\r\nContent-Length: 14\r\n\r\n{\"urls\": []} "
        #expect(try RawHTTP.exchange(Array(request.utf8), port: server.port).status == 400)
        #expect(try alive())
    }

    @Test func refusesContentLengthWithChunkedEncoding() throws {
        let request = "POST /v1/resolve HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
        #expect(try RawHTTP.exchange(Array(request.utf8), port: server.port).status == 400)
        #expect(try alive())
    }

    /// RFC 9112 5: what libmicrohttpd 0.9.75 misreads would let a body be read as a second
    /// request (`GET /readyz`). Each request gets exactly one answer, and the connection
    /// closes. A chunked body is answered 411 from its head: its chunk lines and trailers,
    /// which 0.9.75 reads leniently, are never parsed.
    @Test(arguments: [
        ("POST /v1/resolve HTTP/1.1\r\nHost: x\r\nContent-Length : 33\r\n\r\n", 400),
        ("POST /v1/resolve HTTP/1.1\r\nHost: x\r\nContent-Length:\r\n 33\r\n\r\n", 400),
        ("POST /v1/resolve HTTP/1.1\r\nHost: x\r\nX-A: a\rContent-Length: 33\r\n\r\n", 400),
        ("GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\u{0}b\r\n\r\n", 400),
        ("GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\u{0}b\r\nX-B: c\r\n\r\n", 400),
        ("GET /healthz HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n", 400),
        ("GET /healthz HTTP/1.2\r\nHost: x\r\n\r\n", 505),
        ("POST /v1/resolve HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\n{}\r\n0\r\n\r\n", 411),
        ("POST /v1/resolve HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2;a\rb\r\n{}\r\n0\r\n\r\n", 411),
        ("POST /v1/resolve HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\n0\r\n\r\n", 411),
        ("POST /v1/resolve HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\nX-A: b\rc\r\n\r\n", 411),
        ("POST /v1/resolve HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\nX-A: b\u{0}c\r\n\r\n", 411),
        ("POST /v1/resolve HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\nX-A: b\r\n c\r\n\r\n", 411),
        ("POST /v1/resolve HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\n", 411),
    ])
    func smugglingGetsOneAnswer(head: String, status: Int) throws {
        let connection = try RawHTTP.Connection(port: server.port, timeoutSeconds: 3)
        connection.send(Array((head + "GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n").utf8))
        var received: [UInt8] = []
        while let bytes = connection.receive(), !bytes.isEmpty { received += bytes }
        let text = String(decoding: received, as: UTF8.self)
        // Status lines: at the start, or after a head without a body, or after a JSON body.
        let answers = text.matches(of: /(?:^|\r\n\r\n|\})HTTP\/1\.[01] (\d{3})/).map { String($0.output.1) }
        #expect(answers == ["\(status)"], "\(text)")
        #expect(try alive())
    }

    /// What a legitimate client sends still reads: spaces around values, a name without
    /// space after its colon, bare LF line ends, an empty value.
    @Test func wellFormedHeadersAreNotRefused() throws {
        for head in ["GET /healthz HTTP/1.1\r\nHost: x   \r\nX-A:a\t \r\nX-Empty:\r\nX-B:    c\r\n\r\n",
                     "GET /healthz HTTP/1.1\nHost: x\nX-A: a\n\n",
                     "GET /healthz HTTP/1.0\r\n\r\n"] {
            #expect(try RawHTTP.exchange(Array(head.utf8), port: server.port).status == 200, "\(head)")
        }
        let body = #"{"urls": ["/artwork/a"]}"#
        let post = "POST /v1/resolve HTTP/1.1\nHost: x\nContent-Type: application/json\nContent-Length: \(body.utf8.count)\n\n" + body
        #expect(try RawHTTP.exchange(Array(post.utf8), port: server.port).status == 200)
    }

    @Test func refusesTransferCodingsOtherThanChunkedWith400() throws {
        let request = "POST /v1/resolve HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n{}"
        #expect(try RawHTTP.exchange(Array(request.utf8), port: server.port, timeoutSeconds: 3).status == 400)
        #expect(try alive())
    }

    /// A connection's requests share its buffers (the target, the header values, the
    /// body): nothing of one may reach the next.
    @Test func keepAliveRequestsSeeOnlyTheirOwnTargetHeadersAndBody() throws {
        let connection = try RawHTTP.Connection(port: server.port)
        func send(_ method: String, _ target: String, _ headers: [(String, String)] = [], body: String = "") throws -> RawHTTP.Response {
            var text = "\(method) \(target) HTTP/1.1\r\nHost: x\r\n"
            for (name, value) in headers { text += "\(name): \(value)\r\n" }
            if method == "POST" { text += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
            connection.send(Array((text + "\r\n" + body).utf8))
            return try connection.response()
        }
        let etag = try #require(try send("GET", "/v1/manifest").header("ETag"))
        #expect(try send("GET", "/v1/manifest", [("If-None-Match", etag), ("Accept-Encoding", "gzip")]).status == 304)
        let full = try send("GET", "/v1/manifest")
        #expect(full.status == 200 && full.header("Content-Encoding") == nil)
        // Only the second of the configured headers: the first slot reads as absent.
        #expect(try send("GET", "/v1/manifest", [("Accept-Encoding", "gzip")]).header("Content-Encoding") == "gzip")
        let long = "/artwork/" + String(repeating: "x", count: 3000)
        #expect(try send("GET", "/v1/resolve?url=" + long).json()["destination"] as? String == "Artwork")
        let short = try send("GET", "/v1/resolve?url=/artwork/y").json()
        #expect((short["params"] as? [String: String])?["id"] == "y")
        let posted = try send("POST", "/v1/resolve", body: #"{"urls":["/artwork/a","/artwork/b"]}"#).json()
        #expect((posted["results"] as? [Any])?.count == 2)
        #expect(try send("GET", "/v1/resolve?url=/artwork/z").json()["destination"] as? String == "Artwork")
        let second = try send("POST", "/v1/resolve", body: #"{"urls":["/artwork/c"]}"#).json()
        #expect((second["results"] as? [Any])?.count == 1)
    }

    /// A connection lends its scratch arrays to each resolve (the decoded URL, the
    /// answer) and takes them back: whatever came before on the connection, an answer is
    /// byte for byte the one a new connection gets.
    @Test func answersOnAKeptConnectionAreThoseOfNewConnections() throws {
        let connection = try RawHTTP.Connection(port: server.port)
        let long = "/artwork/" + String(repeating: "w", count: 1500)
        let targets = [
            "/v1/resolve?url=/artwork/andy-warhol-soup&appVersion=7.3.0",
            "/v1/resolve?url=" + long,
            "/v1/resolve?url=/artist/banksy",
            "/v1/resolve?url=/artist/banksy&explain=true",
            "/v1/resolve?url=%2Fsearch%3Fq%3Dwarhol%26entity%3Dartist",
            "/v1/resolve?url=/a%ZZ",
            "/v1/resolve?url=javascript%3Aalert(1)",
            "/healthz",
            "/v1/resolve?url=/x",
            "/v1/resolve?url=https%3A%2F%2Fwww.artsy.net%2Fartwork%2Fsoup%23top",
            "/v1/resolve?url=" + long + "%3Fa%3D1",
            "/v1/resolve?url=/artwork/y",
        ]
        for target in targets + targets.reversed() {
            connection.send(Array("GET \(target) HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            let kept = try connection.response()
            let fresh = try RawHTTP.get(target, port: server.port)
            #expect(kept.status == fresh.status, "\(target.prefix(80))")
            #expect(kept.body == fresh.body, "\(target.prefix(80))")
        }
    }

    /// RFC 9112 6.3: a chunked body is answered 411 from the request's head alone, before
    /// any of it is sent, with a problem that says what to send instead; counted, and
    /// readable by a client that then sends its body anyway (the rest is read and dropped).
    @Test func chunkedBodiesAreAnswered411FromTheHead() throws {
        let live = try LiveServer()
        let head = "POST /v1/resolve HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        let connection = try RawHTTP.Connection(port: live.port, timeoutSeconds: 3)
        connection.send(Array(head.utf8))
        let refused = try connection.response()
        #expect(refused.status == 411)
        #expect(refused.header("Connection") == "close")
        #expect(refused.header("Content-Type") == "application/problem+json")
        #expect(refused.header("X-Content-Type-Options") == "nosniff")
        #expect(try refused.json()["detail"] as? String == "send the body with a Content-Length; chunked request bodies are not accepted")
        // The body sent after it anyway is read and dropped; then the connection closes.
        connection.send(Array("2\r\n{}\r\n0\r\n\r\nGET /readyz HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        var rest: [UInt8] = []
        while let bytes = connection.receive(), !bytes.isEmpty { rest += bytes }
        #expect(rest.isEmpty, "\(String(decoding: rest, as: UTF8.self))")
        // A client that waits for 100 Continue gets the 411 instead.
        let waiting = try RawHTTP.exchange(Array(head.replacingOccurrences(of: "Host: x", with: "Host: x\r\nExpect: 100-continue").utf8),
                                           port: live.port, timeoutSeconds: 3)
        #expect(waiting.status == 411)
        #expect(try RawHTTP.get("/healthz", port: live.port).status == 200)
        #expect(eventually(within: 3) { (try? Self.refusals("length_required", port: live.port)) == 2 })
    }

    /// A client that sends its whole body before it reads (most do) reads the answer it was
    /// given from the head: what follows is read and dropped (a lingering close), where a
    /// close on unread bytes would reset the connection and lose the answer.
    @Test func aClientStillSendingReadsItsRefusal() throws {
        let size = 4 << 20
        let connection = try RawHTTP.Connection(port: server.port, timeoutSeconds: 10)
        connection.send(Array("POST /v1/resolve HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(size)\r\n\r\n".utf8))
        let piece = [UInt8](repeating: UInt8(ascii: " "), count: 64 << 10)
        var sent = 0
        while sent < size {
            let n = connection.send(piece)
            sent += n
            if n < piece.count { break }
        }
        #expect(sent == size, "the server reset the connection after \(sent) bytes")
        let refused = try connection.response()
        #expect(refused.status == 413)
        #expect(try alive())
    }

    /// RFC 9110 10.1.1: `Expect: 100-continue` on a request without a body is answered as
    /// the request, with no 100 Continue before it, and the connection goes on.
    @Test func anExpectationWithoutABodyIsAnsweredAsTheRequest() throws {
        let connection = try RawHTTP.Connection(port: server.port, timeoutSeconds: 3)
        connection.send(Array(("GET /v1/resolve?url=/artwork/a HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n\r\n"
                               + "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").utf8))
        var received: [UInt8] = []
        while let bytes = connection.receive(), !bytes.isEmpty { received += bytes }
        let text = String(decoding: received, as: UTF8.self)
        let answers = text.matches(of: /(?:^|\r\n\r\n|\}|ok)HTTP\/1\.[01] (\d{3})/).map { String($0.output.1) }
        #expect(answers == ["200", "200"], "\(text)")
        #expect(!text.contains("100 Continue"), "\(text)")
    }

    /// Requests pipelined before a chunked body are answered first, in order; then the 411,
    /// and the connection closes.
    @Test func requestsPipelinedBeforeAChunkedBodyAreAnsweredFirst() throws {
        let body = #"{"urls":["/artwork/a"]}"#
        let good = "POST /v1/resolve HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body
        let chunked = "POST /v1/resolve HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"
        let connection = try RawHTTP.Connection(port: server.port, timeoutSeconds: 3)
        connection.send(Array((good + "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n" + chunked + "GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n").utf8))
        var received: [UInt8] = []
        while let bytes = connection.receive(), !bytes.isEmpty { received += bytes }
        let text = String(decoding: received, as: UTF8.self)
        let answers = text.matches(of: /(?:^|\r\n\r\n|\}|ok)HTTP\/1\.[01] (\d{3})/).map { String($0.output.1) }
        #expect(answers == ["200", "200", "411"], "\(text)")
        #expect(text.hasSuffix(#""detail":"send the body with a Content-Length; chunked request bodies are not accepted"}"#), "\(text)")
        // A batch, which is parked while it runs off the daemon's threads, right before it.
        let batch = try RawHTTP.Connection(port: server.port, timeoutSeconds: 3)
        batch.send(Array((good + chunked).utf8))
        received = []
        while let bytes = batch.receive(), !bytes.isEmpty { received += bytes }
        let batchText = String(decoding: received, as: UTF8.self)
        #expect(batchText.matches(of: /(?:^|\r\n\r\n|\})HTTP\/1\.[01] (\d{3})/).map { String($0.output.1) } == ["200", "411"], "\(batchText)")
    }

    static func refusals(_ reason: String, port: Int) throws -> Int {
        let metrics = try RawHTTP.get("/metrics", port: port).text
        let line = metrics.split(separator: "\n").first { $0.hasPrefix(#"switchboard_refusals_total{reason="\#(reason)"}"#) }
        return line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
    }

    @Test func overLongTargetsGet414() throws {
        let long = "/v1/resolve?url=/" + String(repeating: "a", count: 20_000)
        let r = try RawHTTP.get(long, port: server.port)
        #expect(r.status == 414)
        #expect(try alive())
    }

    @Test func oversizedHeadersGet431() throws {
        let r = try RawHTTP.get("/healthz", headers: [("X-Big", String(repeating: "b", count: 70_000))], port: server.port)
        #expect(r.status == 431)
        #expect(try alive())
    }

    @Test func tooManyHeaderFieldsGet431() throws {
        let fields = (0..<100).map { ("X-H\($0)", "v") }
        let r = try RawHTTP.get("/healthz", headers: fields, port: server.port)
        #expect(r.status == 431)
        #expect(r.header("Content-Type") == "application/problem+json")
        #expect(try RawHTTP.get("/healthz", headers: Array(fields.dropFirst(2)), port: server.port).status == 200)
    }

    @Test func aBodyPastItsDeadlineGets408() throws {
        let strict = try LiveServer(http: .init(bodyDeadlineSeconds: 1))
        let c = try RawHTTP.Connection(port: strict.port, timeoutSeconds: 5)
        c.send(Array("POST /v1/resolve HTTP/1.1\r\nHost: x\r\nContent-Length: 20\r\n\r\n{".utf8))
        usleep(1_300_000)
        c.send(Array(" ".utf8))
        let r = try c.response()
        #expect(r.status == 408)
        #expect(try r.json()["status"] as? Int == 408)
        #expect(try RawHTTP.get("/healthz", port: strict.port).status == 200)
    }

    @Test func nulBytesInTheTargetAreRefused() throws {
        let request = Array("GET /v1/resolve?url=/a".utf8) + [0] + Array("b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8)
        let status = (try? RawHTTP.exchange(request, port: server.port))?.status
        #expect(status == nil || status == 400)
        #expect(try alive())
    }
}
