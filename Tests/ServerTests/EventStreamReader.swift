import Foundation

/// A client of `GET /v1/events` over a real socket: it sends the request, reads the
/// chunked body as it arrives and parses it as W3C Server-Sent Events, keeping every
/// field, comment and the closing chunk, so tests see what a browser would.
final class EventStreamReader {
    struct Event: Equatable {
        var id: String?
        var event: String?
        var data: String?
        var retry: Int?
        var comments: [String] = []

        func json() throws -> [String: Any] {
            try JSONSerialization.jsonObject(with: Data((data ?? "").utf8)) as? [String: Any] ?? [:]
        }
    }

    let connection: RawHTTP.Connection
    private(set) var head: RawHTTP.Response?
    /// The body as sent, chunk framing removed.
    private(set) var payload: [UInt8] = []
    /// Whether the closing chunk (`0\r\n\r\n`) arrived: the stream ended cleanly.
    private(set) var ended = false
    private(set) var closed = false
    private var raw: [UInt8] = []
    private var parsed = 0

    init(port: Int, lastEventID: String? = nil, source: String? = nil) throws {
        connection = try RawHTTP.Connection(port: port, source: source, timeoutSeconds: 1)
        var request = "GET /v1/events HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n"
        if let lastEventID { request += "Last-Event-ID: \(lastEventID)\r\n" }
        connection.send(Array((request + "\r\n").utf8))
    }

    /// Reads until `count` events (blocks with data, or a retry) are complete, the stream
    /// ends, or `seconds` pass; returns the events complete so far.
    func events(_ count: Int, within seconds: Double = 5) -> [Event] {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline, !ended, !closed, Self.blocks(payload).count < count {
            pump()
        }
        return Self.blocks(payload)
    }

    /// Reads for `seconds` (or until the stream ends) and returns every block.
    func drain(for seconds: Double) -> [Event] {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline, !ended, !closed { pump() }
        return Self.blocks(payload)
    }

    private func pump() {
        guard let bytes = connection.receive() else {
            closed = true
            return
        }
        raw += bytes
        if head == nil, let end = Self.find([13, 10, 13, 10], in: raw, from: 0) {
            head = RawHTTP.parse(Array(raw[..<(end + 4)]), complete: true)
            raw.removeFirst(end + 4)
        }
        guard head != nil else { return }
        // Chunks: size in hex, CRLF, data, CRLF; size 0 ends the body.
        while let lineEnd = Self.find([13, 10], in: raw, from: parsed) {
            guard let size = Int(String(decoding: raw[parsed..<lineEnd], as: UTF8.self), radix: 16) else { return }
            if size == 0 {
                ended = true
                return
            }
            guard raw.count >= lineEnd + 2 + size + 2 else { return }
            payload += raw[(lineEnd + 2)..<(lineEnd + 2 + size)]
            parsed = lineEnd + 2 + size + 2
        }
    }

    /// The complete blocks of an event stream (each ended by a blank line).
    static func blocks(_ payload: [UInt8]) -> [Event] {
        let text = String(decoding: payload, as: UTF8.self)
        var events: [Event] = []
        var blocks = text.components(separatedBy: "\n\n")
        blocks.removeLast()  // incomplete, or empty
        for block in blocks {
            var event = Event()
            for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix(":") {
                    event.comments.append(String(line.dropFirst()).trimmingCharacters(in: .whitespaces))
                    continue
                }
                let field = line.prefix { $0 != ":" }
                var value = line.dropFirst(field.count).dropFirst()
                if value.hasPrefix(" ") { value = value.dropFirst() }
                switch field {
                case "id": event.id = String(value)
                case "event": event.event = String(value)
                case "data": event.data = (event.data.map { $0 + "\n" } ?? "") + value
                case "retry": event.retry = Int(value)
                default: break
                }
            }
            events.append(event)
        }
        return events
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count >= needle.count, start <= bytes.count - needle.count else { return nil }
        for i in start...(bytes.count - needle.count) where bytes[i] == needle[0] && Array(bytes[i..<(i + needle.count)]) == needle {
            return i
        }
        return nil
    }
}
