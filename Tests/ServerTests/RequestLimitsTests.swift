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
    /// Retry-After; the place is given back once the work is computed, its answer kept
    /// whole until it is sent.
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
        #expect(work.inProgress == 1)
        gate.signal()
        // Woken once the work is done, its place already given back.
        #expect(eventually(within: 5) { held.reason != nil })
        #expect(work.inProgress == 0)
        #expect(held.answer(.woken).status == 200)
    }

    /// A block alone takes all but one expensive place (past them, 429); once all are
    /// taken, a block below its fair share still gets one, and the block holding the most
    /// gives its newest queued request back, answered 503 with Retry-After.
    @Test func theBlockHoldingTheMostExpensivePlacesGivesWay() throws {
        let work = ExpensiveWork(limits: RequestLimits(expensiveRequests: 4))
        let gate = DispatchSemaphore(value: 0)
        let slow: @Sendable (ExpensiveWork.Job) -> (HTTPResponse, OutcomeCounts) = { _ in
            gate.wait()
            return (HTTPResponse(status: 200), .none)
        }
        let mine = (0..<4).map { _ in work.run(client: Self.block(1), slow, answered: { _, _ in }).0 }
        #expect(mine.map(\.status) == [0, 0, 0, 429], "three held, the fourth refused")
        #expect(mine[3].headers.contains { $0 == ("Retry-After", "1") })
        let other = work.run(client: Self.block(2), slow, answered: { _, _ in }).0
        #expect(other.status == 0, "another block is served")
        #expect(work.inProgress == 4)
        // Full: a third block's share is 4/3 = 1, and block 1 (3) gives way.
        let third = work.run(client: Self.block(3), slow, answered: { _, _ in }).0
        #expect(third.status == 0, "a block below its share is served")
        guard case .held(let gaveWay) = mine[2].body else { Issue.record("not offloaded"); return }
        #expect(eventually(within: 5) { gaveWay.reason != nil })
        let refused = gaveWay.answer(gaveWay.reason ?? .woken)
        #expect(refused.status == 503)
        #expect(refused.headers.contains { $0 == ("Retry-After", "1") })
        #expect(work.inProgress == 4)
        // Block 1 now holds 2, its share: refused.
        #expect(work.run(client: Self.block(1), slow, answered: { _, _ in }).0.status == 429)
        for _ in 0..<4 { gate.signal() }
        for response in mine.prefix(2) + [other, third] {
            guard case .held(let held) = response.body else { Issue.record("not offloaded"); continue }
            #expect(eventually(within: 5) { held.reason != nil })
            #expect(held.answer(.woken).status == 200)
        }
        #expect(work.inProgress == 0)
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

/// The connections, shared max-min fairly by client block: once all are taken, a block
/// below its share gets one and the block holding the most gives way; when no block holds
/// more than its share, a connection is refused, and on record either way.
struct ConnectionShareTests {
    @Test func theBlockHoldingTheMostConnectionsGivesWay() throws {
        // 16 connections, at most 2 for each /24; idle ones not cut while this looks.
        var http = HTTPDaemon.Configuration()
        http.connectionLimit = 16
        http.headDeadlineSeconds = 60
        let live = try LiveServer(http: http)
        var idle: [RawHTTP.Connection] = []
        for i in 0..<16 { idle.append(try RawHTTP.Connection(port: live.port, source: "127.0.\(10 + i / 2).\(1 + i % 2)", timeoutSeconds: 1)) }
        usleep(200_000)
        // A ninth block's share is 16/9 = 1: it is served, and one idle connection is shut.
        let newcomer = try RawHTTP.Connection(port: live.port, source: "127.0.30.1")
        newcomer.send(Array("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        #expect(try newcomer.response().status == 200)
        var shut: [Int] = []
        #expect(eventually(within: 3) {
            shut = idle.indices.filter { idle[$0].closedByPeer }
            return !shut.isEmpty
        })
        usleep(300_000)
        shut = idle.indices.filter { idle[$0].closedByPeer }
        // One connection of a block holding two (the most), the one idle the longest.
        #expect(shut.count == 1 && shut.allSatisfy { $0 % 2 == 0 }, "\(shut)")
        // Counted (asked on the newcomer's connection: another block would take a place too).
        newcomer.send(Array("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        let metrics = try newcomer.response().text
        #expect(metrics.contains(#"switchboard_refusals_total{reason="gave_way"} 1"#), "\(metrics)")
    }

    @Test func aConnectionPastTheLimitIsRefusedAndCounted() throws {
        var http = HTTPDaemon.Configuration()
        http.connectionLimit = 16
        let live = try LiveServer(http: http)
        // 16 blocks of one connection each: nobody holds more than its share.
        var idle: [RawHTTP.Connection] = []
        for i in 0..<16 { idle.append(try RawHTTP.Connection(port: live.port, source: "127.0.\(40 + i).1", timeoutSeconds: 1)) }
        usleep(200_000)
        let refused = try RawHTTP.Connection(port: live.port, source: "127.0.60.1", timeoutSeconds: 2)
        refused.send(Array("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        #expect(throws: RawHTTP.RawHTTPError.self) { try refused.response() }
        // Counted through a connection of one of the blocks, which is still served.
        idle[0].send(Array("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        let metrics = try idle[0].response().text
        #expect(metrics.contains(#"switchboard_share_refusals_total{share="connections",holder="server"} 1"#), "\(metrics)")
    }
}

/// Fair shares of the connections for what never ends on its own: held polls and event
/// streams together take at most half of the connection limit, shared max-min fairly by
/// client block, and a stream lives a bounded time.
struct LiveShareTests {
    @Test func heldPollsAndStreamsShareHalfTheConnectionsFairly() throws {
        // 16 connections: 8 for polls and streams; at most 2 for each /24 (an eighth).
        var http = HTTPDaemon.Configuration()
        http.connectionLimit = 16
        let live = try LiveServer(http: http)
        var readers: [EventStreamReader] = []
        for i in 0..<8 {
            let reader = try EventStreamReader(port: live.port, source: "127.0.\(1 + i / 2).1")
            #expect(!reader.events(1).isEmpty)
            readers.append(reader)
        }
        // All 8 taken by 4 blocks of 2: a fifth block's share is 8/5 = 1, and it gets its
        // stream while one of the others ends.
        let newcomer = try EventStreamReader(port: live.port, source: "127.0.5.1")
        #expect(!newcomer.events(1).isEmpty)
        #expect(newcomer.head?.status == 200)
        #expect(eventually(within: 5) { readers.filter { _ = $0.drain(for: 0.05); return $0.closed || $0.ended }.count == 1 })
        // The newcomer holds its share: its second stream is 429, its poll answered at once.
        let refused = try RawHTTP.Connection(port: live.port, source: "127.0.5.2")
        refused.send(Array("GET /v1/events HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        let answer = try refused.response()
        #expect(answer.status == 429)
        #expect((2...5).contains(Int(answer.header("Retry-After") ?? "") ?? 0))
        // A poll that would be held is answered at once, its preference not applied.
        let etag = live.server.etag
        let started = Date()
        let polling = refused  // the block's two connections are taken: the stream, this one
        polling.send(Array("GET /v1/manifest HTTP/1.1\r\nHost: x\r\nIf-None-Match: \(etag)\r\nPrefer: wait=30\r\n\r\n".utf8))
        let poll = try polling.response()
        #expect(poll.status == 304)
        #expect(poll.header("Preference-Applied") == nil)
        #expect(Date().timeIntervalSince(started) < 5)
        let metrics = try RawHTTP.get("/metrics", port: live.port).text
        #expect(metrics.contains(#"switchboard_share_refusals_total{share="live",holder="largest"} 1"#), "\(metrics)")
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
