// `switchboard-bench --client`: SwitchboardClient against a real server in this process:
// the time from the manifest file's rename to the client's announcement of it (a
// blocking poll), next to the server's own reload time; and the client's offline resolve
// next to the engine's. `--client-idle URL SECONDS WAIT [MANIFEST]`: a client that
// follows URL for SECONDS with Prefer: wait=WAIT, started from MANIFEST bundled, and
// prints the answers it had by status (`.ci/bench-client` counts the bytes through a proxy).
import Foundation
import Logging
import Switchboard
import SwitchboardKit
import SwitchboardServer
import SystemSupport

private let quiet = Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() })

func percentiles(_ values: [Double]) -> String {
    let s = values.sorted()
    let p99 = s[min(s.count - 1, Int((Double(s.count) * 0.99).rounded(.up)) - 1)]
    return String(format: "median %.1f ms, p99 %.1f ms, max %.1f ms", s[s.count / 2], p99, s[s.count - 1])
}

func milliseconds(_ d: Duration) -> Double { nanoseconds(d) / 1e6 }

func clientBench(renames: Int) async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("switchboard-client-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("routes.json").path
    let bundled = try String(contentsOfFile: "Config/routes.json", encoding: .utf8)
    func manifest(version: Int) -> Data {
        Data(bundled.replacingOccurrences(of: "\"version\": 1,", with: "\"version\": \(version),").utf8)
    }
    func replace(version: Int) throws -> ContinuousClock.Instant {
        let temporary = path + ".tmp"
        try manifest(version: version).write(to: URL(fileURLWithPath: temporary))
        let renamed = ContinuousClock.now
        guard rename(temporary, path) == 0 else { throw CocoaError(.fileWriteUnknown) }
        return renamed
    }
    try manifest(version: 1).write(to: URL(fileURLWithPath: path))
    let server = try SwitchboardServer(configuration: .init(manifestPath: path, port: 0, threads: 2, watch: true))
    defer { server.stop(gracePeriod: .zero) }

    // The server alone: rename to the new ETag in service (inotify, read, compile, swap).
    var reloads: [Double] = []
    var version = 1
    for _ in 0..<renames {
        version += 1
        let before = server.etag
        let renamed = try replace(version: version)
        while server.etag == before { try await Task.sleep(for: .microseconds(200)) }
        reloads.append(milliseconds(.now - renamed))
        try await Task.sleep(for: .milliseconds(20))
    }

    // The client: rename to its announcement, through a poll held on the server.
    // The cache in a folder of its own: its writes in the manifest's folder would arm the
    // server's reload debounce early and flatter the figure.
    let caches = folder.appendingPathComponent("caches")
    try FileManager.default.createDirectory(at: caches, withIntermediateDirectories: true)
    let client = SwitchboardClient(configuration: .init(server: URL(string: "http://127.0.0.1:\(server.port)")!,
                                                       cacheFile: caches.appendingPathComponent("routes.cache"), logger: quiet))
    var updates = client.updates().makeAsyncIterator()
    client.start()
    func adopted(_ wanted: Int) async -> ContinuousClock.Instant? {
        while let update = await updates.next() {
            if case .adopted(let m) = update, m.version == wanted { return .now }
        }
        return nil
    }
    guard await adopted(version) != nil else { fatalError("the client never took the first manifest") }
    var announcements: [Double] = []
    for _ in 0..<renames {
        version += 1
        // Let the client's next poll reach the server and be held.
        try await Task.sleep(for: .milliseconds(20))
        let renamed = try replace(version: version)
        guard let at = await adopted(version) else { fatalError("the update sequence ended") }
        announcements.append(milliseconds(at - renamed))
    }
    await client.stopAndWait()
    print("rename -> server serving it        (\(renames) renames): \(percentiles(reloads))")
    print("rename -> client announcing it     (\(renames) renames): \(percentiles(announcements))  [held poll, persisted first]")

    // Offline resolve: the engine alone, and through the client, same URLs, same rounds.
    let json = manifestJSON(routes: 1_000)
    let engine = try CompiledManifest(json: json)
    let offline = SwitchboardClient(configuration: .init(server: URL(string: "http://127.0.0.1:1")!, bundled: .data(Data(json)), logger: quiet))
    let urls = urlMix(routes: 1_000)
    let urlBytes = urls.map { Array($0.utf8) }
    var engineRounds: [Double] = [], clientRounds: [Double] = []
    var sink = 0
    for _ in 0..<50 {
        var start = clock.now
        for url in urlBytes { sink &+= fullResolution(engine, url) }
        engineRounds.append(nanoseconds(clock.now - start) / Double(urls.count))
        start = clock.now
        for url in urls { sink &+= offline.resolve(url)?.json.count ?? 0 }
        clientRounds.append(nanoseconds(clock.now - start) / Double(urls.count))
    }
    print(String(format: "resolve, 1,000 routes, result JSON: engine %.0f ns, SwitchboardClient.resolve %.0f ns (median of 50 rounds)%@",
                 median(engineRounds), median(clientRounds), sink == 0 ? " " : ""))
}

func clientIdle(url: String, seconds: Int, wait: Int, bundled: String?) async {
    struct Counting: SwitchboardTransport {
        let inner = URLSessionTransport()
        let polls = Counter()
        func get(_ request: TransportRequest) async throws -> TransportResponse {
            let response = try await inner.get(request)
            polls.add(response.status)
            return response
        }
    }
    let transport = Counting()
    let client = SwitchboardClient(configuration: .init(server: URL(string: url)!, bundled: bundled.map { .file(URL(fileURLWithPath: $0)) }, policy: UpdatePolicy(wait: wait), logger: quiet),
                                   transport: transport)
    client.start()
    try? await Task.sleep(for: .seconds(seconds))
    await client.stopAndWait()
    print(transport.polls.summary)
}

final class Counter: Sendable {
    private let counts = Locked<[Int: Int]>([:])
    func add(_ status: Int) { counts.withLock { $0[status, default: 0] += 1 } }
    var summary: String { counts.withLock { c in c.keys.sorted().map { "\($0): \(c[$0]!)" }.joined(separator: ", ") } }
}

/// `--client-start`: what an app's launch pays for the client, with a bundled manifest of
/// 100, 1,000 and 10,000 generated routes: `init` on the caller's thread, and the time until
/// a `resolve` made right after it is answered (it waits for the bundle, compiled off that
/// thread: the link that launched the app), beside the reference of the same run: the
/// compile alone on the caller's thread. Medians and maxima over `rounds` clients each,
/// rounds alternating between the sizes.
func clientStartBench(rounds: Int) async {
    let sizes = [100, 1_000, 10_000]
    let bundles = sizes.map { Data(manifestJSON(routes: $0)) }
    var inits = [[Double]](repeating: [], count: sizes.count), readies = inits, compiles = inits
    for _ in 0..<rounds {
        for (i, bundle) in bundles.enumerated() {
            let compileStarted = ContinuousClock.now
            guard (try? CompiledManifest(json: Array(bundle))) != nil else { fatalError("the bundle does not compile") }
            compiles[i].append(milliseconds(.now - compileStarted))
            let started = ContinuousClock.now
            let client = SwitchboardClient(configuration: .init(server: URL(string: "http://127.0.0.1:1")!, bundled: .data(bundle),
                                                                logger: quiet, followsAppLifecycle: false))
            let initialized = ContinuousClock.now
            guard client.resolve("/r0/launch") != nil else { fatalError("the launching link was not answered") }
            inits[i].append(milliseconds(initialized - started))
            readies[i].append(milliseconds(.now - started))
        }
    }
    for (i, size) in sizes.enumerated() {
        let s = inits[i].sorted(), r = readies[i].sorted(), c = compiles[i].sorted()
        print(String(format: "%6d routes: init median %.3f ms, max %.3f ms; first resolve median %.1f ms, max %.1f ms; compile alone median %.1f ms",
                     size, s[s.count / 2], s[s.count - 1], r[r.count / 2], r[r.count - 1], c[c.count / 2]))
    }
}
