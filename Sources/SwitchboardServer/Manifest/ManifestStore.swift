import Foundation
import Logging
import Switchboard
import SwitchboardTooling
import MicroHTTPD
import SystemSupport

/// Loads the manifest file and puts each good version of it in service (in
/// ``LiveUpdates``, its one owner). Parsing and validation happen off the request path,
/// on the reloader's thread; a bad file leaves the last good manifest in service.
final class ManifestStore: Sendable {
    /// What a reload did.
    enum ReloadOutcome: Equatable, Sendable {
        case reloaded(version: Int64, etag: String)
        case unchanged
        case failed(String)
    }

    let path: String
    /// The manifest in service, held polls and event streams.
    let live: LiveUpdates
    private let logger: Logger

    /// Loads the manifest at `path`; throws when it cannot be served.
    init(path: String, logger: Logger, live limits: LiveUpdates.Limits = .init(),
         onRefusal: (@Sendable (LiveUpdates.Refusal, ClientBlock) -> Void)? = nil) throws(ManifestFile.LoadError) {
        let bytes = try ManifestFile.read(path)
        let compiled: CompiledManifest, files: AssociationFiles.Made
        do {
            (compiled, files) = try Self.compile(bytes)
        } catch {
            throw .invalid(path: path, error)
        }
        guard let served = ServedManifest(compiled: compiled, files: files, sourceBytes: bytes, loadedAt: Self.now()) else {
            throw .unreadable(path: path, reason: "could not prepare responses")
        }
        self.path = path
        self.live = LiveUpdates(current: served, limits: limits, onRefusal: onRefusal)
        self.logger = logger
    }

    /// The manifest to answer one request from.
    var current: ServedManifest { live.current }

    /// Re-reads the file and puts it in service if it changed and is valid. Call from one
    /// queue at a time (the reloader's); requests are never blocked by it.
    @discardableResult
    func reload() -> ReloadOutcome {
        // Logged before it is published: whoever sees the new manifest or the error
        // (`/readyz`, a poll) finds its line written, even if the server stops right after.
        switch load() {
        case .served(let served):
            logger.info("manifest reloaded", metadata: ["path": "\(path)", "version": "\(served.compiled.manifest.version)",
                                                        "etag": "\(served.compiled.etag)"])
            live.putInService(served)
            return .reloaded(version: served.compiled.manifest.version, etag: served.compiled.etag)
        case .failed(let message, let summary):
            logger.error("manifest rejected, keeping the last good one", metadata: ["path": "\(path)", "error": "\(message)"])
            live.refused(summary, at: Self.now())
            return .failed(message)
        case .unchanged:
            logger.debug("manifest unchanged", metadata: ["path": "\(path)"])
            return .unchanged
        }
    }

    /// What reading the file gave: a manifest to serve, the same bytes, or why not: the
    /// whole message for the log, and a summary for `/readyz` and the event streams, which
    /// anyone may read: the file by its name only (not where it lives) and the first error.
    private enum Loaded: Sendable {
        case served(ServedManifest)
        case unchanged
        case failed(String, summary: String)
    }

    private func load() -> Loaded {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let bytes: [UInt8]
        do {
            bytes = try ManifestFile.read(path)
        } catch {
            return .failed(error.description, summary: error.description.replacingOccurrences(of: path, with: name))
        }
        let current = self.current
        if bytes == current.sourceBytes { return .unchanged }
        let compiled: CompiledManifest, files: AssociationFiles.Made
        do {
            (compiled, files) = try Self.compile(bytes)
        } catch {
            let errors = error.errors.map(\.description), count = error.errorCount
            let more = count > 1 ? " (and \(count - 1) more in the server's log)" : ""
            return .failed("\(path): " + errors.joined(separator: "; "),
                           summary: "\(name): \(count) error\(count == 1 ? "" : "s"): \(errors.first ?? "")\(more)")
        }
        guard let served = ServedManifest(compiled: compiled, files: files, sourceBytes: bytes, loadedAt: Self.now(), replacing: current) else {
            return .failed("\(path): could not prepare responses", summary: "\(name): could not prepare responses")
        }
        return .served(served)
    }

    static func now() -> Int64 { Int64(Date().timeIntervalSince1970) }

    /// The manifest in `bytes`, compiled, and the association files it makes: one whose
    /// files could not be served whole is refused as an invalid one is.
    static func compile(_ bytes: [UInt8]) throws(ManifestError) -> (CompiledManifest, AssociationFiles.Made) {
        let compiled = try CompiledManifest(json: bytes)
        switch AssociationFiles.make(compiled) {
        case .success(let files): return (compiled, files)
        case .failure(let error): throw error
        }
    }
}
