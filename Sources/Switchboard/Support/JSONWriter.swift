import RouteMatching
import SystemSupport

/// A small byte-level JSON writer: strings escaped per RFC 8259 (quotes, backslashes,
/// control characters; U+2028/U+2029 too, for JavaScript), other UTF-8 passed through.
package struct JSONWriter: Sendable {
    package var bytes: [UInt8]

    /// Writes into `buffer` (emptied: one lent by a connection is empty already and has
    /// room), with room for `capacity` bytes.
    package init(capacity: Int = 256, buffer: consuming [UInt8] = []) {
        if !buffer.isEmpty { buffer.removeAll(keepingCapacity: true) }
        buffer.reserveCapacity(capacity)
        bytes = buffer
    }

    @inline(__always)
    package mutating func raw(_ text: StaticString) {
        bytes.append(copying: text)
    }

    /// Appends bytes as they are (serialized ahead of time).
    @inline(__always)
    package mutating func append(_ source: Span<UInt8>) {
        bytes.append(copying: source)
    }

    @inline(__always)
    package mutating func byte(_ b: UInt8) { bytes.append(b) }

    package mutating func bool(_ value: Bool) {
        value ? raw("true") : raw("false")
    }

    /// An array of strings.
    package mutating func strings(_ items: [String]) {
        byte(UInt8(ascii: "["))
        for (i, item) in items.enumerated() {
            if i > 0 { byte(UInt8(ascii: ",")) }
            string(item)
        }
        byte(UInt8(ascii: "]"))
    }

    /// The order of object keys in canonical JSON: by their UTF-8 bytes.
    static func keyOrder(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    package mutating func integer(_ value: Int64) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var v = value.magnitude
        var count = 0
        var t = v
        repeat { count += 1; t /= 10 } while t > 0
        bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: count))
        var i = bytes.count - 1
        repeat {
            bytes[i] = UInt8(ascii: "0") + UInt8(v % 10)
            v /= 10
            i -= 1
        } while v > 0
    }

    package mutating func double(_ value: Double) {
        if value.isFinite, value == value.rounded(), abs(value) < 1e15 {
            integer(Int64(value))
        } else if value.isFinite {
            bytes.append(contentsOf: "\(value)".utf8)
        } else {
            raw("null")
        }
    }

    /// Whether any byte needs escaping or a closer look (control characters, `"`, `\`,
    /// and 0xE2, which may start U+2028/U+2029). Branch-free over the whole span, which
    /// lets the compiler vectorize it: most strings need no escaping.
    @inline(__always)
    static func needsEscaping(_ span: Span<UInt8>) -> Bool {
        var special: UInt8 = 0
        for i in span.indices {
            let b = span[i]
            special |= (b < 0x20 ? 1 : 0) | (b == UInt8(ascii: "\"") ? 1 : 0) | (b == UInt8(ascii: "\\") ? 1 : 0) | (b == 0xE2 ? 1 : 0)
        }
        return special != 0
    }

    /// Writes `text` as a JSON string with its quotes.
    package mutating func string(_ text: String) {
        let span = text.utf8.span
        if Self.needsEscaping(span) { return escaped(span) }
        bytes.append(copying: span, between: UInt8(ascii: "\""))
    }

    /// Writes bytes known to be valid UTF-8 as a JSON string with its quotes, without
    /// building a String first. `plain`: the caller knows they need no escaping
    /// (printable ASCII without `"` or `\`, as URL screening finds them), and they are not
    /// looked at again.
    package mutating func string(validUTF8 text: [UInt8], plain: Bool = false) {
        let span = text.span
        if !plain && Self.needsEscaping(span) { return escaped(span) }
        bytes.append(copying: span, between: UInt8(ascii: "\""))
    }

    /// ``string(validUTF8:plain:)`` for part of a buffer (a path segment); with
    /// `lowercasingASCII`, ASCII capitals are written lowercased. (Apart from the whole
    /// array's form, which every result calls for its URL: a slice's costs ~25
    /// instructions more.)
    package mutating func string(validUTF8 text: ArraySlice<UInt8>, lowercasingASCII: Bool = false, plain: Bool = false) {
        let span = text.span
        if !plain && Self.needsEscaping(span) {
            return lowercasingASCII ? escaped(Array(text.lazy.map(ASCII.lowercased)).span) : escaped(span)
        }
        guard lowercasingASCII else { return bytes.append(copying: span, between: UInt8(ascii: "\"")) }
        bytes.append(UInt8(ascii: "\""))
        for i in span.indices {
            // ASCII.lowercased spelled out: across modules it stayed a call per byte.
            let b = span[i]
            bytes.append(b &- UInt8(ascii: "A") < 26 ? b | 0x20 : b)
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func escaped(_ utf8: Span<UInt8>) {
        bytes.append(UInt8(ascii: "\""))
        var i = 0
        while i < utf8.count {
            let b = utf8[i]
            i += 1
            switch b {
            case UInt8(ascii: "\""): raw("\\\"")
            case UInt8(ascii: "\\"): raw("\\\\")
            case 0x0A: raw("\\n")
            case 0x0D: raw("\\r")
            case 0x09: raw("\\t")
            case 0x08: raw("\\b")
            case 0x0C: raw("\\f")
            case 0x00..<0x20:
                raw("\\u00")
                bytes.append(Self.hex[Int(b >> 4)])
                bytes.append(Self.hex[Int(b & 0xF)])
            case 0xE2 where i + 1 < utf8.count && utf8[i] == 0x80 && (utf8[i + 1] == 0xA8 || utf8[i + 1] == 0xA9):
                // U+2028 and U+2029 (E2 80 A8 / E2 80 A9); other E2 sequences pass.
                utf8[i + 1] == 0xA8 ? raw("\\u2028") : raw("\\u2029")
                i += 2
            default:
                bytes.append(b)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    package mutating func write(_ value: JSONValue, sortedKeys: Bool = false) {
        switch value {
        case .null: raw("null")
        case .bool(let b): bool(b)
        case .integer(let i): integer(i)
        case .double(let d): double(d)
        case .string(let s): string(s)
        case .array(let items):
            byte(UInt8(ascii: "["))
            for (k, item) in items.enumerated() {
                if k > 0 { byte(UInt8(ascii: ",")) }
                write(item, sortedKeys: sortedKeys)
            }
            byte(UInt8(ascii: "]"))
        case .object(let members):
            byte(UInt8(ascii: "{"))
            let ordered = sortedKeys ? members.sorted { Self.keyOrder($0.key, $1.key) } : members
            for (k, member) in ordered.enumerated() {
                if k > 0 { byte(UInt8(ascii: ",")) }
                string(member.key)
                byte(UInt8(ascii: ":"))
                write(member.value, sortedKeys: sortedKeys)
            }
            byte(UInt8(ascii: "}"))
        }
    }
}
