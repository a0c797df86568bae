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
/// A write creates the file's folder if it is missing (a fresh install has no
/// `Application Support`), goes to a temporary file beside it that is this process's own,
/// is flushed to the disk (`fsync`), then renamed over the old file, and the folder is
/// flushed: a crash at any point leaves either the old file or the new one, never a
/// mixture. The new file keeps what was set on the old one: its permissions and, on
/// Apple's platforms, its backup exclusion and protection class (``CacheFileOptions``
/// when there was none). A read checks the length and the digest, so a file damaged
/// another way is refused rather than half-used.
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
    package let options: CacheFileOptions

    package init(path: String, options: CacheFileOptions = CacheFileOptions()) {
        self.path = path
        self.options = options
    }

    /// How old a temporary file of ours is when no write can still be making it: a write
    /// takes milliseconds; one another process (an app extension sharing the folder) is
    /// making now is younger.
    static let staleAfter: TimeInterval = 600

    private var folder: String {
        let folder = (path as NSString).deletingLastPathComponent
        return folder.isEmpty ? "." : folder
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

    /// Replaces the file with `entry`, atomically and durably, creating its folder if needed.
    package func write(_ entry: Entry) throws {
        let header = "\(Self.magic) \(SHA256.hex(entry.body)) \(entry.body.count) \(entry.etag)\n"
        let folder = self.folder
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let previous = try? FileManager.default.attributesOfItem(atPath: path)
        let wasExcluded = previous == nil ? nil : isExcludedFromBackup
        let permissions = (previous?[.posixPermissions] as? NSNumber).map { mode_t($0.uint16Value) } ?? 0o644
        let temporary = "\(path).\(ProcessInfo.processInfo.processIdentifier).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, permissions)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        do {
            // The mode asked for at creation is cut by the umask: set it as the old file had it.
            guard fchmod(descriptor, permissions) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
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
            try keepProtection(of: previous, on: temporary)
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else {
            let code = errno
            try? FileManager.default.removeItem(atPath: temporary)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
        keepBackupExclusion(wasExcluded: wasExcluded)
        // The rename itself is durable once the folder is.
        let directory = open(folder, O_RDONLY)
        if directory >= 0 {
            #if canImport(Darwin)
            _ = fcntl(directory, F_FULLFSYNC)
            #else
            fsync(directory)
            #endif
            close(directory)
        }
    }

    /// Removes the temporary files that writes of this cache killed half-way left beside
    /// it: named as its writes name them (`<file>.<pid>.<n>.tmp`) and older than
    /// ``staleAfter``. Another process's write in progress is younger, and stays.
    package func removeStaleTemporaries(now: Date = Date()) {
        let name = (path as NSString).lastPathComponent
        for file in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where Self.isTemporary(file, of: name) {
            let full = folder + "/" + file
            guard let modified = (try? FileManager.default.attributesOfItem(atPath: full))?[.modificationDate] as? Date,
                  now.timeIntervalSince(modified) > Self.staleAfter else { continue }
            try? FileManager.default.removeItem(atPath: full)
        }
    }

    /// Whether `file` is named as a write of the cache `name` names its temporary file.
    static func isTemporary(_ file: String, of name: String) -> Bool {
        guard file.hasPrefix(name + "."), file.hasSuffix(".tmp") else { return false }
        let middle = file.dropFirst(name.count + 1).dropLast(4).split(separator: ".", omittingEmptySubsequences: false)
        return middle.count == 2 && middle.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }
    }

    /// Whether the cache file is excluded from backups now (Apple's platforms; false elsewhere).
    var isExcludedFromBackup: Bool {
        #if canImport(Darwin)
        return (try? URL(fileURLWithPath: path).resourceValues(forKeys: [.isExcludedFromBackupKey]))?.isExcludedFromBackup ?? false
        #else
        return false
        #endif
    }

    /// The protection class the old file had, else the options', on the new file before it
    /// replaces the old one (Apple's platforms: data protection exists nowhere else).
    private func keepProtection(of previous: [FileAttributeKey: Any]?, on temporary: String) throws {
        #if canImport(Darwin)
        let protection = (previous?[.protectionKey] as? FileProtectionType) ?? options.protection.fileProtectionType
        if let protection {
            try FileManager.default.setAttributes([.protectionKey: protection], ofItemAtPath: temporary)
        }
        #endif
    }

    /// Excludes the new file from backups when the old one was, or, for a first file, when
    /// the options say so (the manifest is fetched again, so backing it up only costs space).
    private func keepBackupExclusion(wasExcluded: Bool?) {
        #if canImport(Darwin)
        guard wasExcluded ?? options.excludedFromBackup else { return }
        var values = URLResourceValues()
        values.isExcludedFromBackup = true
        var url = URL(fileURLWithPath: path)
        try? url.setResourceValues(values)
        #endif
    }
}
