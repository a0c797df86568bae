import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A temporary folder with a manifest in it, removed when the test ends.
public final class ManifestFolder: Sendable {
    public let url: URL
    public var manifest: URL { url.appendingPathComponent("routes.json") }

    public init(_ json: String) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("switchboard-server-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try Data(json.utf8).write(to: manifest)
    }

    /// Replaces the manifest the way editors do: write a temporary file, rename it over.
    public func replace(_ json: String) throws {
        let temporary = url.appendingPathComponent(".routes.json.tmp-\(UUID().uuidString)")
        try Data(json.utf8).write(to: temporary)
        guard rename(temporary.path, manifest.path) == 0 else { throw CocoaError(.fileWriteUnknown) }
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}

public enum Manifests {
    public static let root = Subprocess.packageRoot
    public static var bundled: String { try! String(contentsOf: root.appendingPathComponent("Config/routes.json"), encoding: .utf8) }

    /// A small manifest whose version and destination vary.
    public static func small(version: Int, destination: String = "Artwork") -> String {
        """
        {"version": \(version), "updatedAt": "2026-11-20T10:00:00Z", "hosts": ["artsy.net"], "schemes": ["artsy"],
         "routes": [{"name": "artwork", "pattern": "/artwork/:id", "destination": "\(destination)"},
                    {"name": "home", "pattern": "/", "destination": "Home"}]}
        """
    }
}

/// Polls `condition` until it holds or `seconds` pass (no fixed sleeps).
public func eventually(within seconds: Double = 5, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try condition() { return true }
        usleep(5_000)
    }
    return try condition()
}

