import CMicroHTTPD
import Foundation
import Synchronization
import ServerSystem
import SystemSupport
@testable import MicroHTTPD
import Testing
import TestSupport

/// MicroHTTPD's pieces that need no socket: the deadline heap of the hold loop, header
/// lookup, the request target's parts; and a daemon on port 0 that answers, holds
/// and wakes a request (the servers' suites test the rest through the API).
struct MicroHTTPDTests {
    @Test func theDeadlineHeapGivesDeadlinesInOrderAndDropsTheDead() {
        var heap = DeadlineHeap()
        let now = ContinuousClock.now
        var rng = SystemRandomNumberGenerator()
        let offsets = (0..<1_000).map { _ in Int.random(in: 0...10_000, using: &rng) }
        for (id, ms) in offsets.enumerated() { heap.insert(now + .milliseconds(ms), UInt64(id)) }
        #expect(heap.count == 1_000)
        // Drop the odd ids (released requests), then drain: ascending, even ids only.
        heap.keep { $0 % 2 == 0 }
        var last = now, drained: [UInt64] = []
        while let first = heap.first {
            #expect(first.deadline >= last)
            last = first.deadline
            drained.append(first.id)
            heap.removeFirst()
        }
        #expect(drained.count == 500 && drained.allSatisfy { $0 % 2 == 0 })
        #expect(Set(drained.map { offsets[Int($0)] }).isSubset(of: Set(offsets)))
        heap.removeFirst()  // empty: nothing happens
        #expect(heap.count == 0)
    }

    @Test func headersAreFoundWithoutRegardToASCIICase() {
        let r = HTTPRequest(method: "GET", target: Array("/v1/resolve?url=/a".utf8), body: [],
                            headerNames: ["If-None-Match", "Prefer"], headers: HeaderValues(["\"x\"", nil]))
        #expect(r.header("if-none-match") == "\"x\"")
        #expect(r.header("IF-NONE-MATCH") == "\"x\"")
        #expect(r.header("Prefer") == nil)
        #expect(r.header("If-None-Matcx") == nil)
        #expect(!HTTPRequest.equalsIgnoringASCIICase("a-b", "a\u{0D}b"))  // '-' | 0x20 is '-', not a letter
        #expect(String(decoding: r.path, as: UTF8.self) == "/v1/resolve")
        #expect(String(decoding: r.query, as: UTF8.self) == "url=/a")
        // Fewer values than names: the names after them read as absent.
        let trimmed = HTTPRequest(method: "GET", target: Array("/v1/manifest".utf8), body: [],
                                  headerNames: ["If-None-Match", "Prefer"], headers: HeaderValues(["\"x\""]))
        #expect(trimmed.header("prefer") == nil && trimmed.header(at: 1) == nil && trimmed.header(at: 0) == "\"x\"")
        #expect(trimmed.query.isEmpty && String(decoding: trimmed.path, as: UTF8.self) == "/v1/manifest")
    }

    /// SystemSupport's byte copy (the JSON writer's): every length from none to past the
    /// capacity, into an array shared with a copy (which must not see the bytes), alone and
    /// between delimiters; and a literal.
    @Test func bytesAreAppendedByCopyAsAppendContentsOfWould() {
        let source = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        for count in [0, 1, 2, 15, 16, 17, 64, 300] {
            var bytes: [UInt8] = [9, 8]
            bytes.reserveCapacity(20)
            let shared = bytes
            let piece = source[..<count]
            bytes.append(copying: piece.span)
            #expect(bytes == [9, 8] + piece && shared == [9, 8])
            var quoted: [UInt8] = [9]
            let sharedQuoted = quoted
            quoted.append(copying: piece.span, between: 34)
            #expect(quoted == [9, 34] + piece + [34] && sharedQuoted == [9])
        }
        var text: [UInt8] = []
        text.append(copying: "{\"url\":")
        #expect(String(decoding: text, as: UTF8.self) == "{\"url\":")
    }

    /// An output span's copy checks its room: more bytes than it has stop the process
    /// (the copy's precondition, before a byte is written; the standard library's check
    /// of the count the copy reports would stop it too, after).
    @Test func anOutputSpanRefusesBytesPastItsRoom() async {
        await #expect(processExitsWith: .failure) {
            let three: [UInt8] = [1, 2, 3]
            var bytes: [UInt8] = []
            bytes.append(addingCapacity: 2) { out in out.append(copying: three.span) }
        }
    }

    @Test func scratchArraysAreKeptEmptyWithTheirCapacityUpToALimit() {
        var scratch = ScratchBuffers()
        #expect(scratch.take().capacity == 0)
        var a = scratch.take()
        a.append(contentsOf: repeatElement(7, count: 300))
        let capacity = a.capacity
        // Given by `consume`: the only reference, as the daemon's are (a copy still held
        // here would be emptied as a new array).
        scratch.give(consume a)
        let again = scratch.take()
        #expect(again.isEmpty && again.capacity == capacity)
        // Two slots: a third array given is let go; so is one past the kept capacity.
        scratch.give(consume again)
        scratch.give(Array(repeating: 1, count: 10))
        scratch.give(Array(repeating: 2, count: 20))
        #expect(scratch.take().capacity == capacity && scratch.take().capacity >= 10 && scratch.take().capacity == 0)
        scratch.give(Array(repeating: 3, count: ScratchBuffers.keptCapacity + 1))
        #expect(scratch.take().capacity == 0)
        // An array still held elsewhere is left as it is there (emptied is a copy).
        let shared = [UInt8](repeating: 9, count: 50)
        scratch.give(shared)
        #expect(shared == [UInt8](repeating: 9, count: 50))
        #expect(scratch.take().isEmpty)
    }

    struct Holding: HTTPHandler {
        func handle(_ request: HTTPRequest) -> HTTPResponse {
            if request.path.elementsEqual("/now".utf8) { return HTTPResponse(status: 200, body: Array("now".utf8)) }
            let held = HeldRequest(until: .now + .milliseconds(300)) { wake in
                HTTPResponse(status: wake == .timedOut ? 304 : 200, body: wake == .timedOut ? [] : Array("woken".utf8))
            }
            return .held(held)
        }
    }

    @Test func aDaemonAnswersAndAHeldRequestTimesOut() throws {
        let daemon = try HTTPDaemon(configuration: .init(port: 0, threads: 1), handler: Holding())
        defer { daemon.stop(gracePeriod: .zero) }
        let base = "http://127.0.0.1:\(daemon.port)"
        let now = try Self.curl(base + "/now")
        #expect(now == "200 now")
        let started = ContinuousClock.now
        #expect(try Self.curl(base + "/held") == "304 ")
        #expect(ContinuousClock.now - started >= .milliseconds(250))
    }

    /// Every connection's request state is freed when the connection closes, however it
    /// ends: answered, dropped before a request or in the middle of one, left while its
    /// request is held, or still open (idle or held) when the daemon stops.
    @Test func everyConnectionStateIsFreedWhenItsConnectionCloses() throws {
        let daemon = try HTTPDaemon(configuration: .init(port: 0, threads: 2), handler: Holding())
        let context = daemon.callbackContext
        let port = daemon.port
        func connect() throws -> Int32 { try Self.connect(port) }
        func send(_ fd: Int32, _ text: String) { Self.send(fd, text) }
        func waitFor(_ expected: Int) -> Int {
            // Generous: the daemon's two threads share two cores with every suite running in
            // parallel (a CI run saw 5 s pass before a closed connection's state was freed).
            let deadline = ContinuousClock.now + .seconds(30)
            while context.connectionStates.load(ordering: .relaxed) != expected && ContinuousClock.now < deadline { usleep(10_000) }
            return context.connectionStates.load(ordering: .relaxed)
        }
        for _ in 0..<5 { #expect(try Self.curl("http://127.0.0.1:\(port)/now") == "200 now") }
        let silent = try connect()                       // never sends a byte
        let partial = try connect()                      // half a request line
        send(partial, "GET /no")
        let held = try connect()                         // a held request whose client leaves
        send(held, "GET /held HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(waitFor(3) == 3)
        close(silent); close(partial); close(held)
        #expect(waitFor(0) == 0)
        // Open at the stop: an idle keep-alive connection and a held request.
        let idle = try connect()
        send(idle, "GET /now HTTP/1.1\r\nHost: x\r\n\r\n")
        let parked = try connect()
        send(parked, "GET /held HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(waitFor(2) == 2)
        daemon.stop(gracePeriod: .zero)
        #expect(context.connectionStates.load(ordering: .relaxed) == 0)
        close(idle); close(parked)
    }

    /// A stop waits for a resume another thread decided and has not made yet (a wake-up
    /// preempted between the two): libmicrohttpd aborts the process ("MHD_stop_daemon()
    /// called while we have suspended connections") when stopped with a connection still
    /// suspended, as it did once in a ThreadSanitizer run of the live suites.
    @Test func aStopWaitsForAResumeDecidedOnAnotherThread() throws {
        final class Keeping: HTTPHandler {
            let held = Locked<HeldRequest?>(nil)
            func handle(_ request: HTTPRequest) -> HTTPResponse {
                let request = HeldRequest(until: .now + .seconds(30)) { _ in HTTPResponse(status: 200, body: []) }
                held.withLock { $0 = request }
                return .held(request)
            }
        }
        let handler = Keeping()
        let daemon = try HTTPDaemon(configuration: .init(port: 0, threads: 1), handler: handler)
        let loop = daemon.callbackContext.holdLoop
        let fd = try Self.connect(daemon.port)
        defer { close(fd) }
        Self.send(fd, "GET /held HTTP/1.1\r\nHost: x\r\n\r\n")
        let deadline = ContinuousClock.now + .seconds(5)
        while loop.count == 0 && ContinuousClock.now < deadline { usleep(5_000) }
        let held = try #require(handler.held.withLock { $0 })
        // The wake-up's first half, as a thread preempted before its resume leaves it.
        guard let decided = held.decide(.woken) else {
            Issue.record("the request was not parked")
            return
        }
        let stopped = Atomic(false)
        let stopping = Thread {
            daemon.stop(gracePeriod: .zero)
            stopped.store(true, ordering: .releasing)
        }
        stopping.start()
        usleep(300_000)
        let stoppedEarly = stopped.load(ordering: .acquiring)
        #expect(!stoppedEarly, "stop returned with a resume pending")
        decided.resume()
        while !stopped.load(ordering: .acquiring) && ContinuousClock.now < deadline + .seconds(5) { usleep(5_000) }
        let stoppedAfter = stopped.load(ordering: .acquiring)
        #expect(stoppedAfter)
    }

    /// A request is timed from its request line (``HTTPRequest/began``): a handler that
    /// sees its headers 200 ms after the request line finds 200 ms gone.
    @Test func aRequestBeganWhenItsRequestLineArrived() throws {
        struct Elapsed: HTTPHandler {
            func handle(_ request: HTTPRequest) -> HTTPResponse {
                HTTPResponse(status: 200, body: Array("\((monotonicNanoseconds() - request.began) / 1_000_000)".utf8))
            }
        }
        let daemon = try HTTPDaemon(configuration: .init(port: 0, threads: 1), handler: Elapsed())
        defer { daemon.stop(gracePeriod: .zero) }
        let fd = try Self.connect(daemon.port)
        defer { close(fd) }
        Self.send(fd, "GET /elapsed HTTP/1.1\r\n")
        usleep(200_000)
        Self.send(fd, "Host: x\r\nConnection: close\r\n\r\n")
        var reply: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while case let n = recv(fd, &buffer, buffer.count, 0), n > 0 { reply += buffer[..<n] }
        let text = String(decoding: reply, as: UTF8.self)
        let milliseconds = try #require(text.split(separator: "\r\n\r\n").last.flatMap { Int($0) }, "\(text)")
        #expect(milliseconds >= 190 && milliseconds < 5_000, "\(text)")
    }

    static func connect(_ port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(result == 0)
        return fd
    }

    static func send(_ fd: Int32, _ text: String) {
        _ = Array(text.utf8).withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// `curl`, status and body.
    static func curl(_ url: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "-w", "%{http_code} ", "-o", "/dev/stderr", url]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let status = out.fileHandleForReading.readAll()
        let body = err.fileHandleForReading.readAll()
        process.waitUntilExit()
        return String(decoding: status, as: UTF8.self) + String(decoding: body, as: UTF8.self)
    }
}

/// Connections are counted by the block of addresses one holder gets whole: a /24 for
/// IPv4, a /64 for IPv6.
struct AddressShareTests {
    static func share(_ text: String) -> ClientBlock {
        var v4 = sockaddr_in(), v6 = sockaddr_in6()
        if inet_pton(AF_INET, text, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            return withUnsafePointer(to: &v4) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { IPAddress(sb_address_ip($0)).block } }
        }
        _ = inet_pton(AF_INET6, text, &v6.sin6_addr)
        v6.sin6_family = sa_family_t(AF_INET6)
        return withUnsafePointer(to: &v6) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { IPAddress(sb_address_ip($0)).block } }
    }

    @Test func blocksAreSlash24AndSlash64() {
        #expect(Self.share("203.0.113.7") == Self.share("203.0.113.200"))
        #expect(Self.share("203.0.113.7") != Self.share("203.0.114.7"))
        #expect(Self.share("::ffff:203.0.113.9") == Self.share("203.0.113.7"))
        #expect(Self.share("2001:db8:1:2::1") == Self.share("2001:db8:1:2:ffff:ffff:ffff:ffff"))
        #expect(Self.share("2001:db8:1:2::1") != Self.share("2001:db8:1:3::1"))
        // An IPv6 block whose first bits read as an IPv4 block's is not that block.
        #expect(Self.share("::cb00:7100:0:0") != Self.share("203.0.113.0"))
    }

    @Test func aBlockHoldsItsLimitAndNoMore() {
        let shares = AddressShares(capacity: 100, perBlock: 2)
        let a = Self.share("198.51.100.1"), other = Self.share("198.51.101.1")
        let first = Self.watch("198.51.100.1"), second = Self.watch("198.51.100.2")
        _ = shares.opened(first, block: a)
        _ = shares.opened(second, block: a)
        #expect(shares.admit(Self.share("198.51.100.3")) == .refused(atShare: true))
        #expect(shares.admit(other) == .admitted)
        shares.closed(first, block: a)
        #expect(shares.admit(a) == .admitted)
        shares.closed(second, block: a)
        #expect(shares.count(a) == 0)
    }

    /// Once every connection is taken, a block below its fair share is admitted and the
    /// block holding the most gives way: its connection idle the longest is shut.
    @Test func aFullPoolMakesRoomForANewBlock() throws {
        let shares = AddressShares(capacity: 4, perBlock: 4)
        let hog = Self.share("198.51.100.1")
        var watches: [RequestDeadlines.Watch] = []
        for i in 0..<4 {
            let watch = try Self.socketWatch("198.51.100.\(i + 1)")
            watch.wait(for: .idle, until: 1_000 + UInt64(i))
            #expect(shares.opened(watch, block: hog))
            watches.append(watch)
        }
        #expect(shares.admit(hog) == .refused(atShare: true))
        let newcomer = Self.share("203.0.113.9")
        #expect(shares.admit(newcomer) == .admittedInPlaceOf(watches[0].peer))
        // The shut socket reads its end.
        var byte: UInt8 = 0
        #expect(recv(watches[0].fd, &byte, 1, Int32(MSG_DONTWAIT)) == 0)
        shares.closed(watches[0], block: hog)
        _ = shares.opened(Self.watch("203.0.113.9"), block: newcomer)
        // Two blocks, a share of 2 each: the hog (3) gives way to the newcomer again, but
        // not to a third block once every block holds its share.
        #expect(shares.admit(newcomer) == .admittedInPlaceOf(watches[1].peer))
        for watch in watches { close(watch.fd) }
    }

    static func watch(_ address: String) -> RequestDeadlines.Watch {
        RequestDeadlines.Watch(fd: -1, peer: IPAddress(address)!)
    }

    /// A watch on one end of a socket pair, so that shutting it can be seen.
    static func socketWatch(_ address: String) throws -> RequestDeadlines.Watch {
        var pair: [Int32] = [0, 0]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        return RequestDeadlines.Watch(fd: pair[0], peer: IPAddress(address)!)
    }
}

/// Max-min fair places: room for anyone while there is room, a fair share for everyone once
/// the pool is full, and the largest holder gives way first.
struct FairSharesTests {
    @Test func aHolderAloneTakesMostAndANewcomerItsShare() {
        var pool = FairShares<String>(capacity: 10, perHolder: 9)
        for _ in 0..<9 { #expect(pool.take("hog") == .granted) }
        #expect(pool.take("hog") == .refused(atShare: true))
        #expect(pool.take("a") == .granted)
        // Full: b's share is 10/3 = 3; the hog, above it, gives way.
        #expect(pool.take("b") == .grantedFrom("hog"))
        pool.release("hog")
        #expect(pool.take("b") == .grantedFrom("hog"))
        pool.release("hog")
        #expect(pool.take("b") == .grantedFrom("hog"))
        pool.release("hog")
        // b holds its share of 3: refused, its own share taken.
        #expect(pool.take("b") == .refused(atShare: true))
        // a holds 1 of its 3: the hog (6) gives way again.
        #expect(pool.take("a") == .grantedFrom("hog"))
        pool.release("hog")
        #expect(pool.places(of: "hog") == 5 && pool.places(of: "a") == 2 && pool.places(of: "b") == 3)
        #expect(pool.total == 10)
    }

    @Test func nobodyGivesWayWhenEveryHolderHoldsItsShare() {
        var pool = FairShares<Int>(capacity: 4)
        for holder in 0..<4 { #expect(pool.take(holder) == .granted) }
        // A fifth holder's share is 4/5, at least 1; nobody holds more than 1.
        #expect(pool.take(4) == .refused(atShare: false))
        pool.release(2)
        #expect(pool.take(4) == .granted)
        #expect(pool.holders == 4)
    }

    /// The largest holder is tracked as counts move, without a scan.
    @Test func theLargestHolderFollowsReleases() {
        var pool = FairShares<String>(capacity: 6)
        for _ in 0..<3 { _ = pool.take("x") }
        for _ in 0..<2 { _ = pool.take("y") }
        _ = pool.take("z")
        pool.release("x")
        #expect(pool.take("y") == .granted)
        // Full: x 2, y 3, z 1. y is the largest, and gives way to a newcomer (share 6/4 = 1).
        #expect(pool.verdict(for: "w") == .grantedFrom("y"))
        pool.release("y")
        pool.release("x")
        #expect(pool.take("z") == .granted)
        #expect(pool.take("w") == .granted)
        // Full: x 1, y 2, z 2, w 1; a newcomer's share is 6/5 = 1, and y or z gives way.
        guard case .grantedFrom(let giver) = pool.verdict(for: "u") else { Issue.record("no place for a newcomer"); return }
        #expect(giver == "y" || giver == "z")
    }
}

/// The bodies' bytes, shared max-min fairly by client block.
struct BodyBudgetTests {
    static func watch() -> RequestDeadlines.Watch { RequestDeadlines.Watch(fd: -1, peer: IPAddress(ipv4: 0x7F00_0001)) }
    static let a = IPAddress(ipv4: 0xC000_0201).block, b = IPAddress(ipv4: 0xC000_0301).block, c = IPAddress(ipv4: 0xC000_0401).block

    @Test func aBlockAloneTakesUpToItsCap() {
        let budget = BodyBudget(budget: 100, perBlock: 90)
        let first = Self.watch(), second = Self.watch()
        #expect(budget.receive(60, for: first, block: Self.a) == .accepted)
        #expect(budget.receive(40, for: second, block: Self.a) == .client)
        #expect(budget.receive(30, for: second, block: Self.a) == .accepted)
        #expect(budget.total == 90)
        budget.release(first, block: Self.a)
        #expect(budget.total == 30)
    }

    /// Full: a block below its share is given room, and the block holding the most lets its
    /// newest body go: its bytes at once, its next piece told.
    @Test func theLargestHolderLetsItsNewestBodyGo() {
        let budget = BodyBudget(budget: 100, perBlock: 100)
        let oldest = Self.watch(), newest = Self.watch(), other = Self.watch(), newcomer = Self.watch()
        #expect(budget.receive(30, for: oldest, block: Self.a) == .accepted)
        #expect(budget.receive(30, for: newest, block: Self.a) == .accepted)
        #expect(budget.receive(40, for: other, block: Self.b) == .accepted)
        // C's share is 100/3 = 33: A (60) lets its newest body (30) go.
        #expect(budget.receive(20, for: newcomer, block: Self.c) == .accepted)
        #expect(budget.total == 90)
        #expect(budget.receive(1, for: newest, block: Self.a) == .gaveWay)
        // Released once: the body's end lets nothing go twice.
        budget.release(newest, block: Self.a)
        #expect(budget.total == 90)
        // Past its share when full: C holds 20, asks 20 more of a share of 33.
        #expect(budget.receive(10, for: newcomer, block: Self.c) == .accepted)
        #expect(budget.receive(20, for: newcomer, block: Self.c) == .client)
    }
}
