import Foundation
import Logging
import Switchboard
import SystemSupport

/// Structured logs: one JSON object a line on standard error, e.g.
/// `{"time":"2026-11-21T07:40:00.123Z","level":"info","message":"manifest reloaded","etag":"…","version":"2"}`.
struct JSONLogHandler: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level

    init(level: Logger.Level) { self.logLevel = level }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var members: [JSONValue.Member] = [
            .init("time", .string(Self.timestamp())),
            .init("level", .string(event.level.rawValue)),
            .init("message", .string(event.message.description)),
        ]
        let all = metadata.merging(event.metadata ?? [:]) { $1 }
        for key in all.keys.sorted() { members.append(.init(key, .string(all[key]!.description))) }
        Self.writeLine(JSONValue.object(members).serialized() + [UInt8(ascii: "\n")])
    }

    /// Held while a line is written: a line longer than a pipe's atomic write (4 KiB) goes
    /// out in several writes when the reader is slow, and another thread's line must not
    /// land between them.
    private static let writing = Locked(())

    /// Writes `line` whole to standard error (FileHandle retries partial writes).
    static func writeLine(_ line: [UInt8]) {
        writing.withLock { _ in FileHandle.standardError.write(Data(line)) }
    }

    private static func timestamp() -> String {
        let now = Date().timeIntervalSince1970
        let seconds = Int64(now.rounded(.down))
        let millis = Int((now - Double(seconds)) * 1000)
        var text = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
        if text.hasSuffix("Z") { text.removeLast(); text += String(format: ".%03dZ", millis) }
        return text
    }
}
