import TestSupport
import MicroHTTPD
import Foundation
import Testing

/// Slow clients: one address holding hundreds of half-sent requests must not make the
/// server unreachable for another.
@Suite(.serialized)
struct SlowClientTests {
    @Test func aSlowlorisFromOneAddressLeavesOthersServed() throws {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        if limit.rlim_cur < 2048 {
            limit.rlim_cur = min(4096, limit.rlim_max)
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        let live = try LiveServer()
        // 600 connections from 127.0.0.1, each sending a request line and one header,
        // then nothing.
        var held: [RawHTTP.Connection] = []
        for _ in 0..<600 {
            guard let c = try? RawHTTP.Connection(port: live.port, host: "127.0.0.1", timeoutSeconds: 1) else { break }
            c.send(Array("GET /healthz HTTP/1.1\r\nHost: x\r\n".utf8))
            held.append(c)
        }
        #expect(held.count > 256)
        // Another address is served, quickly.
        let started = Date()
        let other = try RawHTTP.Connection(port: live.port, host: "127.0.0.1", source: "127.0.1.2", timeoutSeconds: 2)
        other.send(Array("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
        let response = try other.response()
        #expect(response.status == 200)
        #expect(Date().timeIntervalSince(started) < 1)
        // The slow address itself gets no more than its share.
        let extra = try? RawHTTP.Connection(port: live.port, host: "127.0.0.1", timeoutSeconds: 2)
        extra?.send(Array("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
        #expect((try? extra?.response())?.status != 200)
        // Nor does another address of its /24: shares count by block, not by address.
        let neighbour = try? RawHTTP.Connection(port: live.port, host: "127.0.0.1", source: "127.0.0.3", timeoutSeconds: 2)
        neighbour?.send(Array("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
        #expect((try? neighbour?.response())?.status != 200)
        held.removeAll()
    }
}

/// Deadlines and budgets no single connection's pace can stretch.
struct HeadAndBodyBudgetTests {
    /// A head trickled a byte at a time never trips the inactivity timeout; its deadline
    /// cuts it off.
    @Test func aHeadTrickledAByteAtATimeIsCutOff() throws {
        var http = HTTPDaemon.Configuration()
        http.headDeadlineSeconds = 2
        let live = try LiveServer(http: http)
        let slow = try RawHTTP.Connection(port: live.port, timeoutSeconds: 1)
        slow.send(Array("GET /healthz HTTP/1.1\r\nHost: x\r\n".utf8))
        let started = Date()
        var closed = false
        while !closed && Date().timeIntervalSince(started) < 8 {
            slow.send(Array("X".utf8))
            usleep(300_000)
            if slow.receive() == nil { closed = true }
        }
        #expect(closed)
        #expect(Date().timeIntervalSince(started) < 5, "\(Date().timeIntervalSince(started)) s")
        #expect(try RawHTTP.get("/healthz", port: live.port).status == 200)
    }
}
