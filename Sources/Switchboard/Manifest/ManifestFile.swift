import Foundation

/// Reading a manifest from disk.
package enum ManifestFile {
    /// Files larger than this are refused before they are read whole.
    package static let maxSize = 16 << 20

    /// Why a manifest file could not be put in service.
    package enum LoadError: Error, Sendable, CustomStringConvertible {
        /// The file could not be read (missing, unreadable, too large).
        case unreadable(path: String, reason: String)
        /// The file was read but is not a valid manifest.
        case invalid(path: String, ManifestError)

        package var description: String {
            switch self {
            case .unreadable(let path, let reason): return "\(path): \(reason)"
            case .invalid(let path, let error): return "\(path): \(error)"
            }
        }
    }

    /// The file's bytes, refusing files over ``maxSize``.
    package static func read(_ path: String) throws(LoadError) -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            let exists = FileManager.default.fileExists(atPath: path)
            throw .unreadable(path: path, reason: exists ? "cannot be read" : "no such file")
        }
        defer { try? handle.close() }
        do {
            guard let data = try handle.read(upToCount: maxSize + 1) else { return [] }
            guard data.count <= maxSize else { throw LoadError.unreadable(path: path, reason: "larger than \(maxSize >> 20) MiB") }
            return [UInt8](data)
        } catch let error as LoadError {
            throw error
        } catch {
            throw .unreadable(path: path, reason: "cannot be read (is it a folder?)")
        }
    }

    /// Reads and compiles a manifest.
    package static func load(_ path: String) throws(LoadError) -> CompiledManifest {
        let bytes = try read(path)
        do {
            return try CompiledManifest(json: bytes)
        } catch {
            throw .invalid(path: path, error)
        }
    }
}
