import Dispatch
import Foundation
import Testing
@testable import MicroHTTPD
@testable import SwitchboardServer
import SystemSupport
import TestSupport

/// What one request may ask (``RequestLimits``), over real sockets: batch sizes, the size
/// of an answer, the media type of a body, and how many expensive requests run at once.
struct RequestLimitsTests {
    static func batch(_ count: Int, explain: String = "false") -> [UInt8] {
        Array(#"{"urls": [\#(Array(repeating: #""/artist/banksy""#, count: count).joined(separator: ","))], "explain": \#(explain)}"#.utf8)
    }

    @Test func bodiesMustBeSentAsWhatTheyAre() throws {
        let live = try LiveServer()
        for type in ["application/x-www-form-urlencoded", "text/plain", "multipart/form-data; boundary=x"] {
            let r = try RawHTTP.request("POST", "/v1/resolve", headers: [("Content-Type", type)], body: Self.batch(1), port: live.port)
            #expect(r.status == 415, "\(type)")
            #expect(r.header("Accept-Post") == "application/json")
            #expect((try r.json()["detail"] as? String)?.contains("Content-Type: application/json") == true)
        }
        let charset = try RawHTTP.request("POST", "/v1/resolve", headers: [("Content-Type", "Application/JSON; charset=utf-8")],
                                          body: Self.batch(1), port: live.port)
        #expect(charset.status == 200)
        let cases = Array("/artist/banksy -> Artist\n".utf8)
        #expect(try RawHTTP.request("POST", "/v1/validate", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                    body: cases, port: live.port).status == 415)
        #expect(try RawHTTP.request("POST", "/v1/validate", body: cases, port: live.port).status == 200)
    }

    @Test func batchesAndTheirAnswersAreBounded() throws {
        let live = try LiveServer(limits: RequestLimits(batchURLs: 50, explainedBatchURLs: 5, batchResponseBytes: 4096))
        #expect(try RawHTTP.request("POST", "/v1/resolve", body: Self.batch(5, explain: "true"), port: live.port).status == 200)
        let explained = try RawHTTP.request("POST", "/v1/resolve", body: Self.batch(6, explain: "\"near\""), port: live.port)
        #expect(explained.status == 413)
        #expect((try explained.json()["detail"] as? String)?.contains("at most 5") == true)
        #expect(try RawHTTP.request("POST", "/v1/resolve", body: Self.batch(51), port: live.port).status == 413)
        // 20 results of ~300 bytes: past 4,096 bytes of answer.
        let large = try RawHTTP.request("POST", "/v1/resolve", body: Self.batch(20), port: live.port)
        #expect(large.status == 413)
        #expect((try large.json()["detail"] as? String)?.contains("larger than 4096 bytes") == true)
        #expect(try RawHTTP.request("POST", "/v1/resolve", body: Self.batch(10), port: live.port).status == 200)
    }

    /// The expensive requests in progress are bounded: past the bound, 503 with
    /// Retry-After, and the place is given back once the answer is out.
    @Test func expensiveRequestsPastTheBoundGet503() throws {
        let work = ExpensiveWork(limits: RequestLimits(expensiveRequests: 1))
        let gate = DispatchSemaphore(value: 0)
        let (first, _) = work.run(client: Self.block(1), { _ in
            gate.wait()
            return (HTTPResponse(status: 200), .none)
        }, answered: { _, _ in })
        guard case .held(let held) = first.body else { Issue.record("not offloaded"); return }
        let (second, _) = work.run(client: Self.block(2), { _ in (HTTPResponse(status: 200), .none) }, answered: { _, _ in })
        #expect(second.status == 503)
        #expect(second.headers.contains { $0 == ("Retry-After", "1") })
        gate.signal()
        // Woken once the work is done; its answer gives the place back when it completes.
        let deadline = Date().addingTimeInterval(5)
        while held.reason == nil && Date() < deadline { usleep(1000) }
        let answer = held.answer(.woken)
        #expect(answer.status == 200)
        #expect(work.inProgress == 1)
        answer.onCompleted?()
        #expect(work.inProgress == 0)
    }

    /// One client block takes at most half of the expensive places: past it, 429 with
    /// Retry-After while another block is still served; its places come back with its answers.
    @Test func oneClientTakesAtMostHalfTheExpensivePlaces() throws {
        let work = ExpensiveWork(limits: RequestLimits(expensiveRequests: 4))
        let gate = DispatchSemaphore(value: 0)
        let slow: @Sendable (ExpensiveWork.Job) -> (HTTPResponse, OutcomeCounts) = { _ in
            gate.wait()
            return (HTTPResponse(status: 200), .none)
        }
        let mine = (0..<3).map { _ in work.run(client: Self.block(1), slow, answered: { _, _ in }).0 }
        #expect(mine.map(\.status) == [0, 0, 429], "two held, the third refused")
        #expect(mine[2].headers.contains { $0 == ("Retry-After", "1") })
        let other = work.run(client: Self.block(2), slow, answered: { _, _ in }).0
        #expect(other.status == 0, "another block is still served")
        #expect(work.inProgress == 3)
        for _ in 0..<3 { gate.signal() }
        for response in mine.prefix(2) + [other] {
            guard case .held(let held) = response.body else { Issue.record("not offloaded"); continue }
            #expect(eventually(within: 5) { held.reason != nil })
            held.answer(.woken).onCompleted?()
        }
        #expect(work.inProgress == 0)
        #expect(work.run(client: Self.block(1), { _ in (HTTPResponse(status: 200), .none) }, answered: { _, _ in }).0.status == 0)
    }

    /// The block of `192.0.2.n`-style addresses numbered `n` (one /24 each).
    static func block(_ n: UInt32) -> ClientBlock { IPAddress(ipv4: 0xC000_0000 | n << 8).block }

    /// A client gone before its work runs leaves nothing to do: the work sees it cancelled.
    @Test func aClientGoneCancelsItsWork() throws {
        let work = ExpensiveWork(limits: RequestLimits(expensiveRequests: 2))
        let gate = DispatchSemaphore(value: 0), saw = DispatchSemaphore(value: 0)
        let (blocker, _) = work.run(client: Self.block(1), { _ in gate.wait(); return (HTTPResponse(status: 200), .none) }, answered: { _, _ in })
        let cancelled = Locked<Bool?>(nil)
        let (second, _) = work.run(client: Self.block(2), { job in
            cancelled.withLock { $0 = job.isCancelled }
            saw.signal()
            return (HTTPResponse(status: 200), .none)
        }, answered: { _, _ in })
        guard case .held(let held) = second.body, case .held = blocker.body else { Issue.record("not offloaded"); return }
        // The hold loop tells a request its client left; it answers (dropped) and gives its place back.
        _ = held.answer(.clientGone)
        #expect(work.inProgress == 1)
        gate.signal()
        // Skipped, or seen cancelled if it had started.
        _ = saw.wait(timeout: .now() + 1)
        #expect(cancelled.withLock { $0 } != false)
    }
}

/// Fair shares of the connections for what never ends on its own: held polls and event
/// streams together take at most half of the connection limit, and a stream lives a
/// bounded time.
struct LiveShareTests {
    @Test func heldPollsAndStreamsTakeAtMostHalfTheConnections() throws {
        // 16 connections: 8 for polls and streams; 2 for each /24 (an eighth).
        var http = HTTPDaemon.Configuration()
        http.connectionLimit = 16
        let live = try LiveServer(http: http)
        var readers: [EventStreamReader] = []
        for i in 0..<8 {
            let reader = try EventStreamReader(port: live.port, source: "127.0.\(1 + i / 2).1")
            #expect(!reader.events(1).isEmpty)
            readers.append(reader)
        }
        let refused = try RawHTTP.Connection(port: live.port, source: "127.0.5.1")
        refused.send(Array("GET /v1/events HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        let answer = try refused.response()
        #expect(answer.status == 503)
        #expect((2...5).contains(Int(answer.header("Retry-After") ?? "") ?? 0))
        // A poll that would be held is answered at once, its preference not applied.
        let etag = live.server.etag
        let started = Date()
        let poll = try RawHTTP.get("/v1/manifest", headers: [("If-None-Match", etag), ("Prefer", "wait=30")], port: live.port)
        #expect(poll.status == 304)
        #expect(poll.header("Preference-Applied") == nil)
        #expect(Date().timeIntervalSince(started) < 5)
        // The rest of the connections still serve.
        #expect(try RawHTTP.get("/healthz", port: live.port).status == 200)
    }

    @Test func aStreamEndsAfterItsTimeAndGivesItsPlaceBack() throws {
        // 16 connections: 8 places for streams, 2 for each /24.
        var http = HTTPDaemon.Configuration()
        http.connectionLimit = 16
        let live = try LiveServer(http: http, limits: RequestLimits(streamSeconds: 2))
        let readers = try (0..<8).map { i in try EventStreamReader(port: live.port, source: "127.0.\(1 + i / 2).1") }
        let opening = readers[0].events(2)
        #expect((2000...5000).contains(opening.first?.retry ?? 0), "its retry: brings the client back, 2 to 5 s later")
        #expect(eventually(within: 20) { readers.allSatisfy { _ = $0.drain(for: 0.05); return $0.ended } },
                "each stream ends with its closing chunk")
        // Every place is given back (as libmicrohttpd frees the ended responses): eight
        // streams again.
        usleep(300_000)
        let again = try (0..<8).map { i in try EventStreamReader(port: live.port, source: "127.0.\(5 + i / 2).1") }
        #expect(again.allSatisfy { !$0.events(1).isEmpty }, "the places came back")
    }
}

extension RawHTTP.Connection {
    /// A connection from `source` that has sent a batch's head and the first `sent` bytes
    /// of `body`, the rest left to send.
    static func postingPart(of body: String, sent: Int, port: Int, source: String) throws -> RawHTTP.Connection {
        let c = try RawHTTP.Connection(port: port, source: source, timeoutSeconds: 5)
        c.send(Array("POST /v1/resolve HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n".utf8)
               + Array(body.utf8.prefix(sent)))
        return c
    }

    /// Sends `request` and reads one response.
    func exchanging(_ request: String) throws -> RawHTTP.Response {
        send(Array(request.utf8))
        return try response()
    }
}
