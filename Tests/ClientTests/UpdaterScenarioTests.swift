import Foundation
import Switchboard
import SwitchboardKit
import SystemSupport
import Testing
import TestSupport

/// The updater scenarios (conformance/updater, the updater's contract), replayed through the
/// client's transport and clock: each request it makes checked against the script and
/// answered as the script says, the clock moved as the script says, and what the client
/// announces, keeps in use, stores and waits checked after each step.
/// clients/typescript/test/scenarios.test.js replays the same files on the TypeScript client.
struct UpdaterScenarioTests {
    static let folder = Subprocess.packageRoot.appendingPathComponent("conformance/updater")
    static let files: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
        .filter { $0.hasSuffix(".json") }.sorted()

    @Test func thereAreAtLeastTwelve() {
        #expect(Self.files.count >= 12, "\(Self.files)")
    }

    @Test(arguments: files)
    func scenario(_ file: String) async throws {
        let data = try Data(contentsOf: Self.folder.appendingPathComponent(file))
        let scenario = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let manifests = try #require(scenario["manifests"] as? [String: Any])
        func bytes(_ name: String) throws -> [UInt8] {
            Array(try JSONSerialization.data(withJSONObject: try #require(manifests[name], "no manifest \(name)")))
        }
        let start = scenario["start"] as? [String: Any] ?? [:]
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("switchboard-scenario-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let cacheFile = folder.appendingPathComponent("routes.cache")
        var initialCache: Data?
        if let cache = start["cache"] as? [String: Any] {
            let body = try bytes(try #require(cache["manifest"] as? String))
            let stored = cache["damage"] as? String == "cut-short" ? Array(body.dropLast()) : body
            let header = "switchboard-client-cache \(cache["format"] as? Int ?? 1) \(SHA256.hex(body)) \(body.count) \(cache["etag"] as? String ?? "")\n"
            initialCache = Data(header.utf8) + Data(stored)
            try initialCache?.write(to: cacheFile)
        }
        var policy = UpdatePolicy()
        let given = scenario["policy"] as? [String: Any] ?? [:]
        func milliseconds(_ key: String) -> Duration? { (given[key] as? NSNumber).map { .milliseconds($0.int64Value) } }
        if let wait = given["wait"] as? Int { policy.wait = wait }
        if let v = milliseconds("minimumInterval") { policy.minimumInterval = v }
        if let v = milliseconds("initialBackoff") { policy.initialBackoff = v }
        if let v = milliseconds("maximumBackoff") { policy.maximumBackoff = v }
        if let v = milliseconds("requestTimeout") { policy.requestTimeout = v }

        let clock = ManualClock()
        let transport = ScriptedTransport()
        var configuration = SwitchboardClient.Configuration(
            server: URL(string: "https://routes.example.com")!, cacheFile: cacheFile,
            bundled: try (start["bundle"] as? String).map { .data(Data(try bytes($0))) }, policy: policy, followsAppLifecycle: false)
        configuration.clock = clock
        let client = SwitchboardClient(configuration: configuration, transport: transport)
        let queue = DispatchQueue(label: "scenario.events")
        let events = Locked<[ClientUpdate]>([])
        let subscription = client.onUpdate(on: queue) { update in events.withLock { $0.append(update) } }
        defer { subscription.cancel() }
        func announced() -> [[String: Any]] { queue.sync {}; return events.withLock { $0 }.map(Self.described) }

        /// Waits until nothing moves: no new request, pause or event for a while.
        func settle() async {
            var last = "", same = 0
            for _ in 0..<1000 {
                if same >= 4 { return }
                try? await Task.sleep(for: .milliseconds(2))
                let now = "\(transport.outstanding.count) \(clock.pending) \(announced().count)"
                same = now == last ? same + 1 : 0
                last = now
            }
        }
        /// What the client does next: a request out at once (0), a pause, or nothing (nil).
        func next() -> Duration? {
            transport.outstanding.isEmpty ? clock.pending.first : .zero
        }
        func check(_ step: [String: Any], _ at: String, since: Int) throws {
            if let expected = step["announced"] as? [[String: Any]] {
                let seen = Array(announced().dropFirst(since))
                #expect(NSArray(array: seen).isEqual(to: expected), "\(at): announced \(seen), not \(expected)")
            }
            if step.keys.contains("inUse") {
                let expected = step["inUse"] as? [String: Any]
                let inUse = client.current.map { ["version": Int($0.version), "source": $0.source.rawValue] as [String: Any] }
                #expect(inUse.map { NSDictionary(dictionary: $0) } == expected.map { NSDictionary(dictionary: $0) }, "\(at): in use \(String(describing: inUse))")
            }
            if step.keys.contains("cached") {
                let expected = step["cached"] as? [String: Any]
                let now = try? Data(contentsOf: cacheFile)
                var cached: [String: Any]?
                if now != nil && now != initialCache, let entry = try? ManifestCache(path: cacheFile.path).read() {
                    let version = (try JSONSerialization.jsonObject(with: Data(entry.body)) as? [String: Any])?["version"] as? Int
                    cached = ["version": version ?? -1, "etag": entry.etag]
                }
                #expect(cached.map { NSDictionary(dictionary: $0) } == expected.map { NSDictionary(dictionary: $0) }, "\(at): cached \(String(describing: cached))")
            }
            if let expected = step["next"] {
                let pause = next()
                if let bounds = expected as? [String: Any] {
                    let low = Duration.milliseconds((bounds["min"] as? NSNumber)?.doubleValue ?? -1)
                    let high = Duration.milliseconds((bounds["max"] as? NSNumber)?.doubleValue ?? -1)
                    #expect(pause.map { $0 >= low && $0 <= high } == true, "\(at): the next request after \(String(describing: pause)), not within \(bounds)")
                } else {
                    #expect(pause == nil, "\(at): the client asks nothing more, but its next request is after \(String(describing: pause))")
                }
            }
        }

        let steps = try #require(scenario["steps"] as? [[String: Any]])
        var seen = 0
        for (index, step) in steps.enumerated() {
            let at = "\(file) step \(index + 1)"
            seen = announced().count
            if let expect = step["expect"] as? [String: Any] {
                // The start is announced before anyone can subscribe: what it announced is
                // kept as its problems and the manifest put in use.
                await client.bootstrapped()
                await settle()
                var started: [[String: Any]] = client.bootstrapProblems.map { ["failed": ["kind": $0.kind.rawValue]] }
                if let current = client.current { started.append(Self.described(.adopted(current))) }
                if let expected = expect["announced"] as? [[String: Any]] {
                    #expect(NSArray(array: started).isEqual(to: expected), "\(at): announced \(started), not \(expected)")
                }
                var rest = expect
                rest.removeValue(forKey: "announced")
                try check(rest, at, since: announced().count)
                continue
            }
            if let app = step["app"] as? String {
                switch app {
                case "start": client.start()
                case "stop": await client.stopAndWait()
                case "pause": await client.pauseAndWait()
                case "resume": client.resume()
                default: Issue.record("\(at): no app event \(app)")
                }
                await settle()
                try check(step, at, since: seen)
                continue
            }
            if let advance = step["advance"] as? NSNumber {
                clock.advance(by: .milliseconds(advance.doubleValue))
                await settle()
                try check(step, at, since: seen)
                continue
            }
            // A request: the pause the client is in runs out first.
            if transport.outstanding.isEmpty {
                let pause = try #require(clock.pending.first, "\(at): the client is neither asking nor waiting to")
                clock.advance(by: pause)
                await settle()
            }
            let out = transport.outstanding
            try #require(out.count == 1, "\(at): \(out.count) requests out")
            let (id, request) = out[0]
            #expect(request.url == "https://routes.example.com/v1/manifest", "\(at)")
            let expected = try #require(step["request"] as? [String: Any])
            func header(_ name: String) -> String? { request.headers.first { $0.key.lowercased() == name.lowercased() }?.value }
            var etag = expected["ifNoneMatch"] as? String
            if let of = (expected["ifNoneMatch"] as? [String: Any])?["etagOf"] as? String {
                etag = try CompiledManifest(json: try bytes(of)).etag
            }
            #expect(header("If-None-Match") == etag, "\(at): If-None-Match")
            #expect(header("Prefer") == expected["prefer"] as? String, "\(at): Prefer")
            let answer = try #require(step["answer"] as? [String: Any])
            clock.advance(by: .milliseconds((answer["after"] as? NSNumber)?.doubleValue ?? 0))
            if let error = answer["error"] as? String {
                transport.answer(id, with: .failure(URLError(.cannotConnectToHost, userInfo: [NSLocalizedDescriptionKey: error])))
            } else {
                let body = try (answer["body"] as? String).map(bytes) ?? Array((answer["text"] as? String ?? "").utf8)
                transport.answer(id, with: .success(TransportResponse(status: answer["status"] as? Int ?? 0,
                                                                      headers: answer["headers"] as? [String: String] ?? [:], body: body)))
            }
            await settle()
            try check(step, at, since: seen)
        }
        await client.stopAndWait()
    }

    /// An update in the scenarios' words.
    static func described(_ update: ClientUpdate) -> [String: Any] {
        switch update {
        case .adopted(let manifest):
            return ["adopted": ["version": Int(manifest.version), "source": manifest.source.rawValue]]
        case .failed(let failure):
            var failed: [String: Any] = ["kind": failure.kind.rawValue]
            if let status = failure.status { failed["status"] = status }
            if let retryAfter = failure.retryAfter { failed["retryAfter"] = Int(retryAfter.components.seconds) }
            return ["failed": failed]
        }
    }
}

/// A clock that moves only when the test says: the pauses the client waits on are seen, with
/// their lengths, and run out when the clock is moved past them.
final class ManualClock: UpdateClock, @unchecked Sendable {
    private struct Sleeper {
        let deadline: Duration
        let duration: Duration
        let continuation: CheckedContinuation<Void, any Error>
    }
    private let lock = NSLock()
    private var time = Duration.zero
    private var sleepers: [Int: Sleeper] = [:]
    private var cancelled: Set<Int> = []
    private var lastID = 0

    var now: Duration { lock.withLock { time } }

    /// The lengths of the pauses waited on now, the soonest to end first.
    var pending: [Duration] {
        lock.withLock { sleepers.values.sorted { $0.deadline < $1.deadline }.map(\.duration) }
    }

    func sleep(for duration: Duration) async throws {
        let id: Int = lock.withLock { lastID += 1; return lastID }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let cancelledAlready: Bool? = lock.withLock {
                    if cancelled.remove(id) != nil { return true }
                    if duration <= .zero { return false }
                    sleepers[id] = Sleeper(deadline: time + duration, duration: duration, continuation: continuation)
                    return nil
                }
                switch cancelledAlready {
                case true?: continuation.resume(throwing: CancellationError())
                case false?: continuation.resume()
                case nil: break
                }
            }
        } onCancel: {
            let continuation: CheckedContinuation<Void, any Error>? = lock.withLock {
                if let sleeper = sleepers.removeValue(forKey: id) { return sleeper.continuation }
                cancelled.insert(id)
                return nil
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock on by `duration`, ending each pause that falls due, in order.
    func advance(by duration: Duration) {
        let due: [CheckedContinuation<Void, any Error>] = lock.withLock {
            time += duration
            let ended = sleepers.filter { $0.value.deadline <= time }.sorted { $0.value.deadline < $1.value.deadline }
            for (id, _) in ended { sleepers.removeValue(forKey: id) }
            return ended.map(\.value.continuation)
        }
        for continuation in due { continuation.resume() }
    }
}

/// A transport whose requests wait for the test to answer them; a cancelled one ends at once.
final class ScriptedTransport: SwitchboardTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var waiting: [Int: (request: TransportRequest, continuation: CheckedContinuation<TransportResponse, any Error>)] = [:]
    private var cancelled: Set<Int> = []
    private var lastID = 0

    /// The requests out now, the oldest first.
    var outstanding: [(Int, TransportRequest)] {
        lock.withLock { waiting.sorted { $0.key < $1.key }.map { ($0.key, $0.value.request) } }
    }

    func get(_ request: TransportRequest) async throws -> TransportResponse {
        let id: Int = lock.withLock { lastID += 1; return lastID }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<TransportResponse, any Error>) in
                let cancelledAlready: Bool = lock.withLock {
                    if cancelled.remove(id) != nil { return true }
                    waiting[id] = (request, continuation)
                    return false
                }
                if cancelledAlready { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let continuation: CheckedContinuation<TransportResponse, any Error>? = lock.withLock {
                if let entry = waiting.removeValue(forKey: id) { return entry.continuation }
                cancelled.insert(id)
                return nil
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    func answer(_ id: Int, with result: Result<TransportResponse, any Error>) {
        let continuation = lock.withLock { waiting.removeValue(forKey: id)?.continuation }
        continuation?.resume(with: result)
    }
}
