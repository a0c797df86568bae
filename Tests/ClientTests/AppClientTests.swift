import Foundation
import Observation
import Switchboard
import SwitchboardKit
import Testing
import SystemSupport
import TestSupport

/// The client as an iOS app uses it, on Linux: its cache in a folder of its own, a start
/// that does not block, the app's background and foreground followed by their
/// notifications, the observable model on the main actor, the values an app can make.
@Suite(.serialized)
struct AppClientTests {
    /// A manifest of `count` routes of one shape each.
    static func manifest(routes count: Int, version: Int = 1) -> [UInt8] {
        let routes = (0..<count).map { #"{"name": "r\#($0)", "pattern": "/r\#($0)/:id", "destination": "D\#($0)"}"# }
        return Array(#"{"version": \#(version), "routes": [\#(routes.joined(separator: ","))]}"#.utf8)
    }

    /// What an app's scene-phase handler does: synchronous code.
    static func sceneWentToTheBackground(_ client: SwitchboardClient) { client.pause() }
    static func sceneCameBack(_ client: SwitchboardClient) { client.resume() }
    static func appIsQuitting(_ client: SwitchboardClient) { client.stop() }

    /// The link that launched the app: resolved right after `init`, with a bundled table
    /// large enough that its compile (off the caller's thread) is still under way, every
    /// resolve is answered, from the bundled copy; `init` itself returned at once.
    @Test func theLaunchingLinkIsAnsweredRightAfterInitWithTenThousandRoutes() async throws {
        let bundled = Self.manifest(routes: 10_000)
        let started = ContinuousClock.now
        let client = SwitchboardClient(configuration: ClientTests.configuration(server: "http://127.0.0.1:1", bundled: bundled))
        let initTook = ContinuousClock.now - started
        // The compile of 10,000 routes (tens of milliseconds in a release build, far more in
        // this debug one) has not happened on this thread.
        #expect(initTook < .milliseconds(100), "init took \(initTook)")
        let stillCompiling = client.current == nil
        let answers = (0..<20).map { client.resolve("/r\($0 * 499)/launch")?.result.destination }
        #expect(answers == (0..<20).map { "D\($0 * 499)" }, "\(answers)")
        #expect(stillCompiling, "the compile ended before the first resolve: this test no longer shows the wait")
        #expect(client.current?.source == .bundle)
        // Resolves from more tasks than the pool has threads, all blocked in `resolve` at
        // once: the compile runs on a thread of its own, so they are all answered.
        let crowd = SwitchboardClient(configuration: ClientTests.configuration(server: "http://127.0.0.1:1", bundled: bundled))
        let crowded = await withTaskGroup(of: String?.self) { group in
            for i in 0..<16 { group.addTask { crowd.resolve("/r\(i)/x")?.result.destination } }
            return await group.reduce(into: Set<String?>()) { $0.insert($1) }
        }
        #expect(crowded == Set((0..<16).map { "D\($0)" }))
        #expect(client.resolve(URL(string: "/r7/abc")!)?.result.destination == "D7")
        // The same from a bundled file, read off the caller's thread too.
        let folder = try ClientTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("routes.json")
        try Data(bundled).write(to: file)
        var configuration = ClientTests.configuration(server: "http://127.0.0.1:1")
        configuration.bundled = .file(file)
        let fromFile = SwitchboardClient(configuration: configuration)
        #expect(fromFile.resolve("/r9999/x")?.result.destination == "D9999")
    }

    /// Nil only when there is no copy at all: no bundle and no cache, or a bundled file
    /// that cannot be read (reported as a bootstrap problem).
    @Test func resolveAnswersNilOnlyWithoutAnyCopy() async throws {
        let nothing = SwitchboardClient(configuration: ClientTests.configuration(server: "http://127.0.0.1:1"))
        #expect(nothing.resolve("/r1/x") == nil)
        var configuration = ClientTests.configuration(server: "http://127.0.0.1:1")
        configuration.bundled = .file(URL(fileURLWithPath: "/nonexistent/routes.json"))
        let missing = SwitchboardClient(configuration: configuration)
        #expect(missing.resolve("/r1/x") == nil)
        #expect(missing.bootstrapProblems.map(\.kind) == [.bootstrap])
        #expect(missing.bootstrapProblems.first?.message.contains("/nonexistent/routes.json cannot be read") == true,
                "\(missing.bootstrapProblems)")
    }

    @Test func aCacheInAFolderThatDoesNotExistIsWrittenAndKeepsItsPermissions() async throws {
        let root = try ClientTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        // What a fresh install has: no Application Support, let alone the app's folder in it.
        let cacheFile = root.appendingPathComponent("Application Support/routes/v1/routes.cache").path
        let server = try FaultyServer(Manifests.small(version: 1))
        let client = SwitchboardClient(configuration: ClientTests.configuration(server: server.url, cacheFile: cacheFile))
        await client.refresh()
        #expect(client.current?.source == .server)
        let entry = try ManifestCache(path: cacheFile).read()
        #expect(entry.etag == server.server.etag)
        // The app made the file private; an update replaces it and keeps that.
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: cacheFile)
        try await server.replace(Manifests.small(version: 2))
        await client.refresh()
        #expect(client.current?.version == 2)
        #expect(try ManifestCache(path: cacheFile).read().etag == server.server.etag)
        let mode = try FileManager.default.attributesOfItem(atPath: cacheFile)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
    }

    @Test func onlyTheClientsOwnStaleTemporaryFilesAreRemoved() async throws {
        let folder = try ClientTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cacheFile = folder.appendingPathComponent("routes.cache").path
        try ManifestCache(path: cacheFile).write(.init(body: Array(Manifests.small(version: 3).utf8), etag: "\"e\""))
        let anHourAgo = Date(timeIntervalSinceNow: -3600)
        // Another process (an app extension sharing an App Group) writing now, a write of
        // ours killed long ago, and files that are not ours at all.
        let files: [(name: String, old: Bool, stays: Bool)] = [
            ("routes.cache.4242.77.tmp", false, true),
            ("routes.cache.4243.78.tmp", true, false),
            ("routes.cache.backup.tmp", true, true),
            ("other.cache.4243.78.tmp", true, true),
        ]
        for file in files {
            let path = folder.appendingPathComponent(file.name).path
            try Data("partial".utf8).write(to: URL(fileURLWithPath: path))
            if file.old { try FileManager.default.setAttributes([.modificationDate: anHourAgo], ofItemAtPath: path) }
        }
        let client = SwitchboardClient(configuration: ClientTests.configuration(server: "http://127.0.0.1:1", cacheFile: cacheFile))
        await client.bootstrapped()
        #expect(client.current?.version == 3)
        for file in files {
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(file.name).path) == file.stays, "\(file.name)")
        }
    }

    @Test func theBackgroundNotificationFreesTheHeldPollAndTheForegroundOneAsksAtOnce() async throws {
        let (server, client, log) = try await ClientTests.following(policy: UpdatePolicy(wait: 120), followsAppLifecycle: true)
        #expect(await waitUntil { server.heldPolls == 1 })
        let posted = ContinuousClock.now
        NotificationCenter.default.post(name: Notification.Name("UIApplicationDidEnterBackgroundNotification"), object: nil)
        #expect(client.mode == .paused)
        #expect(ContinuousClock.now - posted < .seconds(1))
        #expect(await waitUntil(within: 1) { server.heldPolls == 0 }, "the server still holds the poll 1 s after the app went to the background")
        // Nothing is asked in the background, whatever changes.
        let asked = server.arrivals.count
        try await server.replace(Manifests.small(version: 2, destination: "Edited"))
        try await Task.sleep(for: .milliseconds(300))
        #expect(server.arrivals.count == asked)
        let foreground = ContinuousClock.now
        NotificationCenter.default.post(name: Notification.Name("UIApplicationWillEnterForegroundNotification"), object: nil)
        #expect(client.mode == .running)
        let adopted = try #require(await log.first { $0.version == 2 })
        // At once, not after the 120 s a held poll waits (room left for a loaded machine).
        #expect(adopted.at - foreground < .seconds(30))
        // The poll the background cut is not a failure.
        #expect(log.all.allSatisfy { $0.failure == nil }, "\(log.all)")
        Self.appIsQuitting(client)
        #expect(client.mode == .idle)
        #expect(await waitUntil(within: 5) { server.heldPolls == 0 })
    }

    @Test func pauseAndStopReturnAtOnceFromSynchronousCode() async throws {
        let (server, client, _) = try await ClientTests.following(policy: UpdatePolicy(wait: 120))
        #expect(await waitUntil { server.heldPolls == 1 })
        let paused = ContinuousClock.now
        Self.sceneWentToTheBackground(client)
        #expect(ContinuousClock.now - paused < .milliseconds(100))
        #expect(client.mode == .paused)
        #expect(await waitUntil(within: 1) { server.heldPolls == 0 }, "the server still holds the poll 1 s after pause()")
        Self.sceneCameBack(client)
        #expect(await waitUntil { server.heldPolls == 1 })
        // A client that does not follow the notifications ignores them.
        NotificationCenter.default.post(name: Notification.Name("UIApplicationDidEnterBackgroundNotification"), object: nil)
        #expect(client.mode == .running)
        let stopped = ContinuousClock.now
        Self.appIsQuitting(client)
        #expect(ContinuousClock.now - stopped < .milliseconds(100))
        #expect(await waitUntil(within: 1) { server.heldPolls == 0 })
    }

    @MainActor
    @Test func theModelPublishesEachUpdateAndModeOnTheMainActor() async throws {
        let server = try FaultyServer(Manifests.small(version: 1, destination: "First"))
        let client = SwitchboardClient(configuration: ClientTests.configuration(server: server.url, policy: ClientTests.quick))
        let model = SwitchboardModel(client: client)
        #expect(model.manifest == nil)
        let changed = Locked(0)
        func track() {
            withObservationTracking { _ = (model.manifest, model.mode, model.lastFailure) } onChange: {
                changed.withLock { $0 += 1 }
            }
        }
        track()
        client.start()
        #expect(await mainActorWait { model.version == 1 })
        #expect(changed.withLock { $0 } >= 1)
        #expect(model.mode == .running)
        #expect(model.resolve(URL(string: "/artwork/soup")!)?.result.destination == "First")
        track()
        try await server.replace(Manifests.small(version: 2, destination: "Second"))
        #expect(await mainActorWait { model.version == 2 })
        #expect(model.resolve("/artwork/soup")?.result.destination == "Second")
        Self.sceneWentToTheBackground(client)
        #expect(await mainActorWait { model.mode == .paused })
        server.fault = .status(503, retryAfter: "1")
        client.resume()
        #expect(await mainActorWait { model.lastFailure?.status == 503 })
        await client.stopAndWait()
    }

    /// Waits on the main actor, letting it run the model's updates in between.
    @MainActor
    func mainActorWait(within seconds: Double = 30, _ condition: @MainActor () -> Bool) async -> Bool {
        let end = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < end {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    @Test func previewsAndTestsCanMakeEveryValueTheClientHandsOut() throws {
        let compiled = try CompiledManifest(json: Array(Manifests.small(version: 9, destination: "Preview").utf8))
        let manifest = ManifestInUse(compiled: compiled, etag: compiled.etag, source: ManifestSource.bundle)
        #expect(manifest.version == 9)
        let failure = ClientFailure(.status, "the server answered 503", status: 503, retryAfter: .seconds(5))
        let updates: [ClientUpdate] = [.adopted(manifest), .failed(failure)]
        #expect(updates.count == 2)
        let answer = SwitchboardClient.Answer(result: compiled.resolve("/artwork/soup"), manifest: manifest)
        #expect(answer.result.destination == "Preview")
        #expect(answer.result.string("id") == "soup")
        let typed = try CompiledManifest(json: Array(#"{"version": 1, "routes": [{"name": "page", "pattern": "/page/:n", "destination": "Page", "params": {"n": {"type": "int"}}}]}"#.utf8))
        let page = typed.resolve("/page/42?ref=x")
        #expect(page.int("n") == 42)
        #expect(page.string("ref") == "x")
        #expect(page.param("missing") == nil)
    }

    @Test func aTransportErrorKeepsItsURLErrorCode() async throws {
        let client = SwitchboardClient(configuration: ClientTests.configuration(server: "http://127.0.0.1:\(try ClientTests.closedPort())"))
        let log = ClientTests.follow(client)
        let failure = Locked<ClientFailure?>(nil)
        let queue = DispatchQueue(label: "updates")
        let subscription = client.onUpdate(on: queue) { if case .failed(let f) = $0 { failure.withLock { $0 = f } } }
        await client.refresh()
        _ = await log.first { $0.failure != nil }
        queue.sync {}
        subscription.cancel()
        let code = try #require(failure.withLock { $0 }?.urlErrorCode)
        #expect([.cannotConnectToHost, .networkConnectionLost, .timedOut, .cannotFindHost].contains(code), "\(code)")
    }
}
