import Foundation
import Switchboard

/// The client's copy of the last good manifest on disk: one file, replaced whole.
///
/// The file is a header line and the manifest's bytes exactly as the server sent them:
///
/// ```text
/// switchboard-client-cache 1 <sha256 hex of the body> <body length> <ETag>
/// {"caseSensitive":false,...}
/// ```
///
/// A write goes to a temporary file beside it, is flushed to the disk (`fsync`), then
/// renamed over the old file, and the folder is flushed: a crash at any point leaves
/// either the old file or the new one, never a mixture. A read checks the length and the
/// digest, so a file damaged another way is refused rather than half-used.
package struct ManifestCache: Sendable {
    /// What a cache file holds.
    package struct Entry: Sendable, Equatable {
        /// The manifest's JSON as the server (or the bundle) gave it.
        package var body: [UInt8]
        /// The ETag the server sent with it, for `If-None-Match`.
        package var etag: String

        package init(body: [UInt8], etag: String) {
            self.body = body
            self.etag = etag
        }
    }

    /// Why a cache file could not be used.
    package enum ReadError: Error, Sendable, CustomStringConvertible {
        case missing
        case unreadable(String)
        case corrupt(String)

        package var description: String {
            switch self {
            case .missing: return "no cache file"
            case .unreadable(let why): return "cannot read the cache file: \(why)"
            case .corrupt(let why): return "the cache file is damaged: \(why)"
            }
        }
    }

    static let magic = "switchboard-client-cache 1"

    package let path: String

    package init(path: String) {
        self.path = path
    }

    /// The entry on disk, checked.
    package func read() throws(ReadError) -> Entry {
        guard FileManager.default.fileExists(atPath: path) else { throw .missing }
        let bytes: [UInt8]
        do {
            bytes = try ManifestFile.read(path)
        } catch {
            throw .unreadable(error.description)
        }
        guard let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) else { throw .corrupt("no header line") }
        let fields = String(decoding: bytes[..<newline], as: UTF8.self).split(separator: " ", maxSplits: 4)
        guard fields.count == 5, "\(fields[0]) \(fields[1])" == Self.magic, let length = Int(fields[3]) else {
            throw .corrupt("not a switchboard client cache")
        }
        let body = Array(bytes[(newline + 1)...])
        guard body.count == length else { throw .corrupt("\(body.count) bytes of manifest, the header says \(length)") }
        guard SHA256.hex(body) == fields[2] else { throw .corrupt("the manifest's SHA-256 is not the one recorded") }
        return Entry(body: body, etag: String(fields[4]))
    }

    /// Replaces the file with `entry`, atomically and durably.
    package func write(_ entry: Entry) throws {
        let header = "\(Self.magic) \(SHA256.hex(entry.body)) \(entry.body.count) \(entry.etag)\n"
        let folder = (path as NSString).deletingLastPathComponent
        let temporary = "\(path).\(ProcessInfo.processInfo.processIdentifier).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        do {
            let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
            defer { try? handle.close() }
            try handle.write(contentsOf: Data(header.utf8) + Data(entry.body))
            #if canImport(Darwin)
            // Apple's fsync leaves the bytes in the drive's cache; F_FULLFSYNC asks the drive
            // to write them, which is what surviving a power loss takes there.
            guard fcntl(descriptor, F_FULLFSYNC) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            #else
            try handle.synchronize()
            #endif
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else {
            let code = errno
            try? FileManager.default.removeItem(atPath: temporary)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
        // The rename itself is durable once the folder is.
        let directory = open(folder.isEmpty ? "." : folder, O_RDONLY)
        if directory >= 0 {
            #if canImport(Darwin)
            _ = fcntl(directory, F_FULLFSYNC)
            #else
            fsync(directory)
            #endif
            close(directory)
        }
    }

    /// Removes temporary files that writes killed half-way left beside the cache file.
    package func removeStaleTemporaries() {
        let folder = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        let directory = folder.isEmpty ? "." : folder
        for file in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        where file.hasPrefix(name + ".") && file.hasSuffix(".tmp") {
            try? FileManager.default.removeItem(atPath: directory + "/" + file)
        }
    }
}
