import Foundation
import Logging
import Switchboard
import MicroHTTPD
import SystemSupport

/// The manifest in service, swapped atomically on reload. Requests take the current
/// one under a lock held for a pointer copy; parsing and validation happen outside it,
/// on the reload queue, and a bad file leaves the last good manifest in service.
final class ManifestStore: Sendable {
    struct State: Sendable {
        var current: ServedManifest
        var lastReloadError: String?
        var reloads = 0
        var reloadFailures = 0
    }

    /// What a reload did.
    enum ReloadOutcome: Equatable, Sendable {
        case reloaded(version: Int64, etag: String)
        case unchanged
        case failed(String)
    }

    let path: String
    /// Held polls and event streams, woken by the swap.
    let live: LiveUpdates
    private let state: Locked<State>
    private let logger: Logger

    /// Loads the manifest at `path`; throws when it cannot be served.
    init(path: String, logger: Logger) throws(ManifestFile.LoadError) {
        let bytes = try ManifestFile.read(path)
        let compiled: CompiledManifest
        do {
            compiled = try CompiledManifest(json: bytes)
        } catch {
            throw .invalid(path: path, error)
        }
        guard let served = ServedManifest(compiled: compiled, sourceBytes: bytes, loadedAt: Self.now()) else {
            throw .unreadable(path: path, reason: "could not prepare responses")
        }
        self.path = path
        self.live = LiveUpdates(current: served)
        self.state = Locked(State(current: served))
        self.logger = logger
    }

    /// The manifest to answer one request from.
    var current: ServedManifest { state.withLock { $0.current } }

    var snapshot: State { state.withLock { $0 } }

    /// Re-reads the file and swaps it in if it changed and is valid. Call from one
    /// queue at a time (the reloader's); requests are never blocked by it.
    @discardableResult
    func reload() -> ReloadOutcome {
        let loaded = load()
        // Logged before it is published: whoever sees the new manifest or the error
        // (`/readyz`, a poll) finds its line written, even if the server stops right after.
        switch loaded {
        case .served(let served):
            logger.info("manifest reloaded", metadata: ["path": "\(path)", "version": "\(served.compiled.manifest.version)",
                                                        "etag": "\(served.compiled.etag)"])
        case .failed(let message):
            logger.error("manifest rejected, keeping the last good one", metadata: ["path": "\(path)", "error": "\(message)"])
        case .unchanged:
            logger.debug("manifest unchanged", metadata: ["path": "\(path)"])
        }
        // The new manifest and the reload bookkeeping change together, under one lock: a
        // request never sees the new manifest beside the previous reload's error.
        let outcome: ReloadOutcome = state.withLock { s in
            switch loaded {
            case .served(let served):
                s.current = served
                s.reloads += 1
                s.lastReloadError = nil
                return .reloaded(version: served.compiled.manifest.version, etag: served.compiled.etag)
            case .failed(let message):
                s.reloadFailures += 1
                s.lastReloadError = message
                return .failed(message)
            case .unchanged:
                return .unchanged
            }
        }
        switch (outcome, loaded) {
        case (_, .served(let served)): live.manifestChanged(to: served)
        case (.failed(let message), _): live.reloadFailed(message, at: Self.now())
        default: break
        }
        return outcome
    }

    /// What reading the file gave: a manifest to serve, the same bytes, or why not.
    private enum Loaded: Sendable {
        case served(ServedManifest)
        case unchanged
        case failed(String)
    }

    private func load() -> Loaded {
        let bytes: [UInt8]
        do {
            bytes = try ManifestFile.read(path)
        } catch {
            return .failed(error.description)
        }
        let current = self.current
        if bytes == current.sourceBytes { return .unchanged }
        let compiled: CompiledManifest
        do {
            compiled = try CompiledManifest(json: bytes)
        } catch {
            return .failed("\(path): " + error.diagnostics.filter { $0.severity == .error }.map(\.description).joined(separator: "; "))
        }
        guard let served = ServedManifest(compiled: compiled, sourceBytes: bytes, loadedAt: Self.now()) else {
            return .failed("\(path): could not prepare responses")
        }
        return .served(served)
    }

    static func now() -> Int64 { Int64(Date().timeIntervalSince1970) }
}
