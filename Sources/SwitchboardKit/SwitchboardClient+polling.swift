import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Switchboard

// Following the server: the update loop, one conditional GET at a time, and what its
// answer calls for (docs/clients.md, "What it does, and why").
extension SwitchboardClient {
    /// The update loop: one request at a time, then the pause its answer calls for. It
    /// holds the client only while a request is out, never while it pauses, so a client
    /// let go without `stop()` goes away (its `deinit` cancels the pause).
    static func follow(_ weakClient: WeakClient, clock: any UpdateClock) async {
        var failures = 0
        while !Task.isCancelled {
            guard let pause = await step(weakClient, failures: &failures) else { return }
            if pause > .zero { try? await clock.sleep(for: pause) }
        }
    }

    /// One step of the client, if it is still there: the strong reference ends with it.
    private static func step(_ weakClient: WeakClient, failures: inout Int) async -> Duration? {
        guard let client = weakClient.value else { return nil }
        return await client.step(failures: &failures)
    }

    struct WeakClient: Sendable {
        weak var value: SwitchboardClient?
    }

    /// One request (held when `hold` and there is a manifest to compare with) and what
    /// it calls for: the pause before the next.
    func step(failures: inout Int, hold: Bool = true) async -> Duration {
        let lifecycle = state.withLock { $0.lifecycle }
        do {
            let pause = try await poll(hold: hold)
            failures = 0
            return pause
        } catch {
            if Task.isCancelled { return .zero }
            // Cut by the app's suspension (it went to the background and came back while
            // the request was out): ask again at once, as a resume does, and report nothing.
            if state.withLock({ $0.lifecycle }) != lifecycle {
                configuration.logger.info("a request cut by the app's suspension: \(error); asking again")
                return .zero
            }
            failures += 1
            let wait = error.retryAfter ?? configuration.policy.backoff(failures: failures)
            configuration.logger.warning("update failed: \(error); retrying in \(wait)")
            announce(.failed(error))
            return wait
        }
    }

    /// One conditional GET, held when there is a manifest to compare with; returns the
    /// pause before the next.
    private func poll(hold: Bool) async throws(ClientFailure) -> Duration {
        let policy = configuration.policy
        let known = current
        var headers = ["Accept": "application/json"]
        let held = hold && known != nil && policy.wait > 0
        if let known { headers["If-None-Match"] = known.etag }
        if held { headers["Prefer"] = "wait=\(policy.wait)" }
        let base = configuration.server.absoluteString
        let url = base.hasSuffix("/") ? base + "v1/manifest" : base + "/v1/manifest"
        let request = TransportRequest(url: url, headers: headers, timeout: policy.timeout(held: held))
        let clock = configuration.clock
        let started = clock.now
        let response = try await send(request)
        let interval = policy.interval(cacheControl: response.header("Cache-Control"))
        switch response.status {
        case 304:
            // A poll the server held answers after `wait`: ask again at once. One that came
            // back much sooner was not held (a proxy that dropped Prefer, say), and asking
            // again at once would spin.
            let wasHeld = held && LivePolling.appliedWait(response.header("Preference-Applied"))
                && clock.now - started >= .seconds(policy.wait) / 2
            return wasHeld ? .zero : interval
        case 200:
            // A new manifest: ask again at once, now held on its ETag (a server that does not
            // hold answers 304 at once, and the interval applies from then). A 200 naming the
            // manifest in use is no news: never ask again at once for it.
            return try adopt(response, replacing: known) && policy.wait > 0 ? .zero : interval
        case let status where policy.proxyGaveUp(status: status, held: held, after: clock.now - started):
            // The proxy's timeout is under the wait: ask again, as after a quiet 304.
            configuration.logger.info("a proxy answered \(status) to a poll held \(clock.now - started); asking again (lower the policy's wait under the proxy's timeout)")
            return .zero
        case 429, 503:
            throw ClientFailure(.status, "the server answered \(response.status)", status: response.status,
                                retryAfter: UpdatePolicy.retryAfter(response.header("Retry-After")))
        default:
            throw ClientFailure(.status, "the server answered \(response.status)", status: response.status)
        }
    }

    /// The request, within its timeout, whatever the transport does about time.
    private func send(_ request: TransportRequest) async throws(ClientFailure) -> TransportResponse {
        let transport = self.transport
        let clock = configuration.clock
        do {
            return try await withThrowingTaskGroup(of: TransportResponse?.self) { group in
                group.addTask { try await transport.get(request) }
                group.addTask {
                    try await clock.sleep(for: request.timeout)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let response = first else {
                    throw ClientFailure(.timeout, "no answer from \(request.url) within \(request.timeout)")
                }
                return response
            }
        } catch let failure as ClientFailure {
            throw failure
        } catch let error as URLError {
            throw ClientFailure(error.code == .timedOut ? .timeout : .unreachable, "\(request.url): \(error.localizedDescription)",
                                urlErrorCode: error.code)
        } catch {
            throw ClientFailure(.unreachable, "\(request.url): \(error.localizedDescription)")
        }
    }

    /// Checks a 200 and puts its manifest in use when it is another one; returns whether it was.
    private func adopt(_ response: TransportResponse, replacing known: ManifestInUse?) throws(ClientFailure) -> Bool {
        let contentType = response.header("Content-Type") ?? "none"
        guard contentType.lowercased().split(separator: ";").first?.trimmingCharacters(in: .whitespaces) == "application/json" else {
            throw ClientFailure(.contentType, "the manifest came as \(contentType), not application/json")
        }
        let body = response.body
        var etag = response.header("ETag") ?? ""
        if etag.hasPrefix("W/") { etag.removeFirst(2) }
        // The ETag is the SHA-256 of the canonical bytes, which are the body.
        if etag.hasPrefix("\"sha256-"), etag != "\"sha256-\(SHA256.hex(body))\"" {
            throw ClientFailure(.integrity, "the body (\(body.count) bytes) is not the manifest its ETag \(etag) names")
        }
        let compiled: CompiledManifest
        do {
            compiled = try CompiledManifest(json: body)
        } catch {
            let first = error.diagnostics.first.map { ": \($0)" } ?? ""
            throw ClientFailure(.invalidManifest, "the server's manifest does not compile (\(error.diagnostics.count) problems)\(first); not used")
        }
        if etag.isEmpty { etag = compiled.etag }
        guard etag != known?.etag else { return false }
        let manifest = ManifestInUse(compiled: compiled, etag: etag, source: .server)
        state.withLock { $0.current = manifest }
        configuration.logger.info("using version \(manifest.version) \(etag) from the server")
        if let cache {
            do {
                try cache.write(ManifestCache.Entry(body: body, etag: etag))
            } catch {
                let failure = ClientFailure(.persist, "cannot write \(cache.path): \(error.localizedDescription)")
                configuration.logger.warning("\(failure.message); the manifest is used all the same")
                announce(.failed(failure))
            }
        }
        announce(.adopted(manifest))
        return true
    }
}
