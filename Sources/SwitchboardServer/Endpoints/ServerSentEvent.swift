import Switchboard

/// The W3C Server-Sent Events wire format (`text/event-stream`): blocks of `field: value`
/// lines, each block ended by a blank line. Values are single lines: data is compact JSON,
/// whose writer escapes every control character, so a manifest's text can never end a
/// field or forge one.
enum ServerSentEvent {
    /// An event: `id` (kept by the client as its last event id; absent leaves it
    /// unchanged), the event's name, one line of data.
    static func event(_ name: String, id: String? = nil, data: JSONValue) -> [UInt8] {
        var text = ""
        if let id { text += "id: \(id)\n" }
        text += "event: \(name)\ndata: "
        var bytes = Array(text.utf8)
        bytes += data.serialized()
        bytes += Array("\n\n".utf8)
        return bytes
    }

    /// The client's reconnection delay, in milliseconds (a block without data dispatches
    /// no event).
    static func retry(milliseconds: Int) -> [UInt8] { Array("retry: \(milliseconds)\n\n".utf8) }

    /// A comment line: ignored by clients, keeps proxies from closing an idle stream.
    static let keepAlive = Array(": keep-alive\n\n".utf8)
}
