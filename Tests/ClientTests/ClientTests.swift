import Foundation
import Logging
import MicroHTTPD
import Switchboard
import SwitchboardKit
import SwitchboardServer
import Testing
import TestSupport

/// SwitchboardClient against the real server over real sockets (docs/clients.md).
@Suite(.serialized)
struct ClientTests {
    /// Quick retries so that a failure and its recovery take well under a second.
    static let quick = UpdatePolicy(wait: 1, minimumInterval: .milliseconds(200), initialBackoff: .milliseconds(50),
                                    maximumBackoff: .milliseconds(200), requestTimeout: .milliseconds(700))

    static let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// A configuration that logs nothing (the updates are what the tests read).
    /// A client's configuration; it follows the app's lifecycle notifications only when
    /// asked, so that a test that posts them moves no other test's client.
    static func configuration(server: String, cacheFile: String? = nil, bundled: [UInt8]? = nil,
                              policy: UpdatePolicy = UpdatePolicy(), followsAppLifecycle: Bool = false) -> SwitchboardClient.Configuration {
        .init(server: URL(string: server)!, cacheFile: cacheFile.map { URL(fileURLWithPath: $0) }, bundled: bundled.map { .data(Data($0)) }, policy: policy, logger: quiet,
              followsAppLifecycle: followsAppLifecycle)
    }

    static func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("switchboard-client-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A server of version 1 and a client started on it, followed, once it has adopted that
    /// version.
    static func following(policy: UpdatePolicy, followsAppLifecycle: Bool = false) async throws -> (FaultyServer, SwitchboardClient, UpdateLog) {
        let server = try FaultyServer(Manifests.small(version: 1))
        let client = SwitchboardClient(configuration: configuration(server: server.url, policy: policy, followsAppLifecycle: followsAppLifecycle))
        let log = follow(client)
        client.start()
        // A first answer, however long the other suites hold the threads its tasks need.
        #expect(await log.first(within: 300) { $0.version == 1 } != nil)
        return (server, client, log)
    }

    static func follow(_ client: SwitchboardClient) -> UpdateLog {
        let summaries = client.updates().map { update -> ClientUpdateSummary in
            switch update {
            case .adopted(let m): return ClientUpdateSummary(version: m.version, source: m.source.rawValue, at: .now)
            case .failed(let f): return ClientUpdateSummary(failure: f.kind.rawValue, at: .now)
            }
        }
        let (stream, continuation) = AsyncStream.makeStream(of: ClientUpdateSummary.self)
        Task {
            for await s in summaries { continuation.yield(s) }
            continuation.finish()
        }
        return UpdateLog(stream)
    }

    static func destination(_ client: SwitchboardClient, _ url: String = "/artwork/soup") -> String? {
        client.resolve(url)?.result.destination
    }

    /// A port nothing listens on (one the kernel just handed out and took back).
    static func closedPort() throws -> Int {
        let daemon = try HTTPDaemon(configuration: .init(port: 0), handler: Nobody())
        let port = daemon.port
        daemon.stop(gracePeriod: .zero)
        return port
    }

    struct Nobody: HTTPHandler {
        func handle(_ request: HTTPRequest) -> HTTPResponse { HTTPResponse(status: 404) }
    }

    @Test func aFirstStartWithNoCacheAndTheServerDownUsesTheBundleThenTheServer() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let port = try Self.closedPort()
        let cacheFile = folder.appendingPathComponent("routes.cache").path
        let client = SwitchboardClient(configuration: Self.configuration(server: "http://127.0.0.1:\(port)", cacheFile: cacheFile,
                                                           bundled: Array(Manifests.small(version: 1, destination: "Bundled").utf8),
                                                           policy: Self.quick))
        // Usable before any request: the bundled copy, once read off the caller's thread.
        #expect(await client.ready(timeout: .seconds(30)))
        #expect(client.current?.source == .bundle)
        #expect(Self.destination(client) == "Bundled")
        let log = Self.follow(client)
        client.start()
        // Refused (or, on a loaded machine, not answered in time): reported either way.
        let failure = await log.first { $0.failure != nil }
        #expect(failure?.failure == "unreachable" || failure?.failure == "timeout", "\(String(describing: failure))")
        #expect(Self.destination(client) == "Bundled")
        #expect(!FileManager.default.fileExists(atPath: cacheFile))

        // The server comes up on that port: the client takes its manifest and keeps it.
        let manifest = try ManifestFolder(Manifests.small(version: 2, destination: "FromServer"))
        let server = try SwitchboardServer(configuration: .init(manifestPath: manifest.manifest.path, port: port, watch: false))
        defer { server.stop(gracePeriod: .zero) }
        let adopted = await log.first { $0.version == 2 }
        #expect(adopted?.source == "server")
        #expect(Self.destination(client) == "FromServer")
        #expect(try ManifestCache(path: cacheFile).read().etag == server.etag)
        await client.stopAndWait()

        // The next start begins from the cache, offline.
        let again = SwitchboardClient(configuration: Self.configuration(server: "http://127.0.0.1:\(try Self.closedPort())", cacheFile: cacheFile,
                                                          bundled: Array(Manifests.small(version: 1).utf8)))
        await again.bootstrapped()
        #expect(again.current?.source == .cache)
        #expect(again.current?.etag == server.etag)
        #expect(again.bootstrapProblems.isEmpty)
    }

    @Test func anEditReachesTheClientThroughABlockingPoll() async throws {
        let (server, client, log) = try await Self.following(policy: UpdatePolicy(wait: 30))
        // Held on the server, not polling: one request in flight, parked.
        #expect(await waitUntil { server.heldPolls == 1 })
        let requestsBefore = server.arrivals.count
        let renamed = ContinuousClock.now
        try server.folder.replace(Manifests.small(version: 2, destination: "Edited"))
        let adopted = try #require(await log.first { $0.version == 2 })
        // The held poll was answered because the manifest changed (a wake-up), not at the
        // end of its wait (a 304 and a new poll): the mechanism, whatever the machine's
        // load. The time bound only separates it from 60 s of max-age; what it takes on a
        // busy machine is the test pool's (its two threads held 20 s by CPU-bound tests).
        #expect(server.wakeups == 1)
        #expect(adopted.at - renamed < .seconds(50), "announced \(adopted.at - renamed) after the rename")
        #expect(Self.destination(client) == "Edited")
        // Then one new poll, held again: the client does not poll in a loop. (Counted
        // once it is parked: right after the adoption it may still be on its way.)
        #expect(await waitUntil { server.heldPolls == 1 && server.arrivals.count > requestsBefore })
        #expect(server.arrivals.count <= requestsBefore + 2, "\(server.arrivals.count - requestsBefore) requests after the edit")
        await client.stopAndWait()
    }

    @Test func stopEndsAHeldRequestAtOnce() async throws {
        let server = try FaultyServer(Manifests.small(version: 1))
        let client = SwitchboardClient(configuration: Self.configuration(server: server.url, policy: UpdatePolicy(wait: 120)))
        client.start()
        #expect(await waitUntil { server.heldPolls == 1 })
        let started = ContinuousClock.now
        await client.stopAndWait()
        // At once against the poll's 120 s (a stop that waited for the answer would take
        // them all); 60 s leaves room for ThreadSanitizer and a starved test pool on a busy
        // machine (it read 1.5 s).
        #expect(ContinuousClock.now - started < .seconds(60))
        // The server sees the client go: its held poll is gone well before 120 s.
        #expect(await waitUntil { server.heldPolls == 0 })
        // Resolving goes on with the manifest it had.
        #expect(Self.destination(client) == "Artwork")
    }

    @Test func aClientLetGoWhileItPausesGoesAwayAtOnce() async throws {
        let server = try FaultyServer(Manifests.small(version: 1))
        server.fault = .status(503, retryAfter: "120")
        weak var released: SwitchboardClient?
        do {
            let client = SwitchboardClient(configuration: Self.configuration(server: server.url, policy: UpdatePolicy(wait: 1)))
            var updates = client.updates().makeAsyncIterator()
            client.start()
            released = client
            // The 503 is answered: the client now pauses the 120 s its Retry-After asks.
            _ = await updates.next()
        }
        // Well before the 120 s: nothing holds it while it pauses.
        #expect(await waitUntil(within: 10) { released == nil })
    }

    @Test func aClientLetGoWithoutStopGoesAwayAfterItsRequest() async throws {
        let server = try FaultyServer(Manifests.small(version: 1))
        weak var released: SwitchboardClient?
        do {
            let client = SwitchboardClient(configuration: Self.configuration(server: server.url, policy: UpdatePolicy(wait: 1)))
            client.start()
            released = client
            #expect(await waitUntil { server.heldPolls == 1 })
        }
        // The held poll (1 s and its jitter) ends, and nothing holds the client any more.
        #expect(await waitUntil { released == nil })
        #expect(await waitUntil { server.heldPolls == 0 })
    }

    @Test(arguments: [
        (FaultyServer.Fault.status(500, retryAfter: nil), "status"),
        (.truncated, "unreachable"),
        (.invalidManifest, "invalidManifest"),
        (.wrongContentType, "contentType"),
        (.stall, "timeout"),
    ])
    func aFailingServerLeavesTheLastGoodManifestInUseUntilItRecovers(fault: FaultyServer.Fault, kind: String) async throws {
        let server = try FaultyServer(Manifests.small(version: 1, destination: "Good"))
        let client = SwitchboardClient(configuration: Self.configuration(server: server.url, policy: Self.quick))
        let log = Self.follow(client)
        client.start()
        #expect(await log.first { $0.version == 1 } != nil)
        // Once the poll held at the time has timed out, every answer is the fault; then the
        // server moves on to version 2, which the client cannot get through it.
        server.fault = fault
        #expect(await waitUntil { server.faultsAnswered >= 1 })
        try await server.replace(Manifests.small(version: 2, destination: "Better"))
        // Reported, more than once, and never used.
        let failure = await log.first { $0.failure != nil }
        #expect(failure?.failure == kind)
        #expect(await waitUntil { server.faultsAnswered >= 3 })
        #expect(Self.destination(client) == "Good")
        #expect(client.current?.version == 1)
        #expect(!log.all.contains { $0.version == 99 || $0.version == 2 })
        // The server recovers: so does the client, within a retry or two.
        server.fault = .none
        #expect(await log.first { $0.version == 2 } != nil)
        #expect(Self.destination(client) == "Better")
        await client.stopAndWait()
    }

    /// A proxy whose timeout is under the wait answers a quiet held poll 502 or 504: the
    /// client asks again at once, reports no failure and does not back off; the same
    /// status sooner than half the wait is a failure.
    @Test func aProxyGivingUpOnAHeldPollIsNoFailure() async throws {
        let policy = UpdatePolicy(wait: 2, minimumInterval: .milliseconds(200), initialBackoff: .seconds(30),
                                  maximumBackoff: .seconds(60), requestTimeout: .seconds(10))
        for status in [504, 502] {
            let (server, client, log) = try await Self.following(policy: policy)
            server.fault = .proxyTimeout(status, after: .milliseconds(1200))
            // Three in a row, each asked for at once after the last: a backoff of up to 30 s
            // would have left a gap.
            #expect(await waitUntil(within: 60) { server.faultsAnswered >= 3 })
            let arrivals = server.arrivals.suffix(3)
            let gaps = zip(arrivals.dropFirst(), arrivals).map { $0 - $1 }
            #expect(gaps.allSatisfy { $0 < .seconds(5) }, "gaps \(gaps)")
            #expect(!log.all.contains { $0.failure != nil }, "\(log.all)")
            // Answered at once: the proxy failing, a failure that backs off.
            server.fault = .proxyTimeout(status, after: .zero)
            #expect(await log.first { $0.failure == "status" } != nil)
            await client.stopAndWait()
        }
        #expect(policy.proxyGaveUp(status: 504, held: true, after: .seconds(1)))
        #expect(!policy.proxyGaveUp(status: 504, held: false, after: .seconds(60)))
        #expect(!policy.proxyGaveUp(status: 500, held: true, after: .seconds(60)))
        #expect(!UpdatePolicy().proxyGaveUp(status: 504, held: true, after: .seconds(9)))
        #expect(UpdatePolicy().proxyGaveUp(status: 504, held: true, after: .seconds(10)))
        #expect(UpdatePolicy().wait == 25)
    }

    @Test func retryAfterOn503IsHonoured() async throws {
        let (server, client, log) = try await Self.following(policy: Self.quick)
        server.fault = .status(503, retryAfter: "2")
        #expect(await waitUntil { server.faultsAnswered >= 2 })
        server.fault = .none
        // The backoff alone would retry within 200 ms; Retry-After: 2 asks for 2 s.
        let arrivals = server.arrivals
        let gaps = zip(arrivals.dropFirst(), arrivals).map { $0 - $1 }
        #expect(gaps.last.map { $0 >= .milliseconds(1900) } == true, "gaps \(gaps)")
        #expect(log.all.contains { $0.failure == "status" })
        await client.stopAndWait()
    }

    @Test func aCorruptCacheIsIgnoredWithAWarningAndTheBundleUsed() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = ManifestCache(path: folder.appendingPathComponent("routes.cache").path)
        let body = Array(Manifests.small(version: 5, destination: "Cached").utf8)
        try cache.write(.init(body: body, etag: "\"x\""))
        #expect(try cache.read().body == body)
        // One byte changed in the manifest: the digest no longer matches.
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: cache.path)))
        let at = bytes.lastIndex(of: UInt8(ascii: "C"))!
        bytes[at] = UInt8(ascii: "K")
        try Data(bytes).write(to: URL(fileURLWithPath: cache.path))
        let client = SwitchboardClient(configuration: Self.configuration(server: "http://127.0.0.1:1", cacheFile: cache.path,
                                                           bundled: Array(Manifests.small(version: 1, destination: "Bundled").utf8)))
        await client.bootstrapped()
        #expect(client.current?.source == .bundle)
        #expect(Self.destination(client) == "Bundled")
        #expect(client.bootstrapProblems.map(\.kind) == [.bootstrap])
        #expect(client.bootstrapProblems.first?.message.contains("damaged") == true)
        // Garbage, and a file cut short, likewise.
        for damaged in [Data("not a cache".utf8), Data(bytes.prefix(bytes.count - 10))] {
            try damaged.write(to: URL(fileURLWithPath: cache.path))
            let c = SwitchboardClient(configuration: Self.configuration(server: "http://127.0.0.1:1", cacheFile: cache.path,
                                                          bundled: Array(Manifests.small(version: 1).utf8)))
            await c.bootstrapped()
            #expect(c.current?.source == .bundle)
            #expect(c.bootstrapProblems.count == 1)
        }
    }

    @Test func aProcessKilledWhilePersistingAlwaysRestartsFromAValidFile() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Two large manifests of the same size, so that a write takes long enough to be
        // killed in and the file holds each half of the time.
        let a = folder.appendingPathComponent("a.json"), b = folder.appendingPathComponent("b.json")
        for (version, file) in [(1, a), (2, b)] {
            let routes = (0..<5_000).map { #"{"name": "r\#($0)", "pattern": "/r\#($0)/:id", "destination": "D\#(version)"}"# }
            try Data(#"{"version": \#(version), "routes": [\#(routes.joined(separator: ","))]}"#.utf8).write(to: file)
        }
        let bodies = try [Data(contentsOf: a), Data(contentsOf: b)].map { [UInt8]($0) }
        let cacheFile = folder.appendingPathComponent("routes.cache").path
        let writer = Subprocess.packageRoot.appendingPathComponent(".build/debug/client-cache-writer")
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("client-cache-writer")
        let tool = FileManager.default.isExecutableFile(atPath: executable.path) ? executable : writer
        var seen = Set<Int>()
        for round in 0..<40 {
            let process = Process()
            process.executableURL = tool
            process.arguments = [cacheFile, a.path, b.path]
            let out = Pipe()
            process.standardOutput = out
            try process.run()
            // Killed at a random point of a write after its first few: the time of one write
            // is measured on the way (debug, release and ThreadSanitizer builds differ tenfold).
            let writes = Int.random(in: 1...4)
            var done = 0, lastLine = ContinuousClock.now, period = Duration.zero
            while done < writes {
                let chunk = out.fileHandleForReading.availableData
                guard !chunk.isEmpty else { break }
                done += chunk.filter { $0 == UInt8(ascii: "\n") }.count
                period = ContinuousClock.now - lastLine
                lastLine = .now
            }
            try await Task.sleep(for: period * Double.random(in: 0...1))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let entry = try ManifestCache(path: cacheFile).read()
            let which = try #require(bodies.firstIndex(of: entry.body), "round \(round): the cache holds neither manifest")
            seen.insert(which)
            #expect(entry.etag == "\"\([a, b][which].path)\"")
            // A client starts from it. What the killed write left behind is as young as
            // another process's write in progress would be: it stays until it is stale.
            let client = SwitchboardClient(configuration: Self.configuration(server: "http://127.0.0.1:1", cacheFile: cacheFile))
            await client.bootstrapped()
            #expect(client.current?.source == .cache)
        }
        #expect(seen.count == 2)
        // Aged past a write's possible length, the killed writes' files go at the next start.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".tmp") }
        for file in leftovers {
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)],
                                                  ofItemAtPath: folder.appendingPathComponent(file).path)
        }
        let client = SwitchboardClient(configuration: Self.configuration(server: "http://127.0.0.1:1", cacheFile: cacheFile))
        await client.bootstrapped()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".tmp") }.isEmpty)
    }
}
