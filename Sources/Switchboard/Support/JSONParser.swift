import RouteMatching

/// A strict RFC 8259 parser on bytes. Errors carry the byte offset; nesting is
/// limited so hostile input cannot exhaust the stack; duplicate keys are refused.
package struct JSONParser {
    /// Deepest nesting of arrays and objects accepted.
    package static let maxDepth = 256

    /// A syntax error at a byte offset.
    package struct Error: Swift.Error, Sendable, Equatable, CustomStringConvertible {
        package let offset: Int
        package let message: String
        package var description: String { "invalid JSON at byte \(offset): \(message)" }
    }

    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0
    /// Whether to note where each value starts (for ``SourceMap``).
    private let recording: Bool
    private var offsets: [Int32] = []
    private var sizes: [Int32] = []

    private init(_ bytes: [UInt8], recording: Bool = false) {
        self.bytes = bytes
        self.recording = recording
    }

    /// Parses one JSON document filling all of `bytes` (whitespace around it allowed).
    package static func parse(_ bytes: [UInt8]) throws(Error) -> JSONValue {
        var parser = JSONParser(bytes)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3 }
        parser.skipWhitespace()
        let value = try parser.value()
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.error("unexpected data after the document") }
        return value
    }

    /// Parses like ``parse(_:)-(_:[UInt8])`` and also returns where every value starts,
    /// so that a JSON pointer into the document can be given a line and column later
    /// without parsing again.
    package static func parseWithSourceMap(_ bytes: [UInt8]) throws(Error) -> (JSONValue, SourceMap) {
        var parser = JSONParser(bytes, recording: true)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3 }
        parser.skipWhitespace()
        let value = try parser.value()
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.error("unexpected data after the document") }
        return (value, SourceMap(bytes: bytes, offsets: parser.offsets, sizes: parser.sizes))
    }

    package static func parse(_ text: String) throws(Error) -> JSONValue {
        try parse(Array(text.utf8))
    }

    private func error(_ message: String) -> Error { Error(offset: index, message: message) }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    private mutating func value() throws(Error) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of input") }
        guard recording else { return try unrecordedValue() }
        // Values are numbered in document order; a container's size counts itself and
        // everything inside it, so a reader can step over a member without its tree.
        let slot = offsets.count
        offsets.append(Int32(truncatingIfNeeded: index))
        sizes.append(1)
        let value = try unrecordedValue()
        sizes[slot] = Int32(truncatingIfNeeded: offsets.count - slot)
        return value
    }

    private mutating func unrecordedValue() throws(Error) -> JSONValue {
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw error("unexpected character '\(Self.printable(bytes[index]))'")
        }
    }

    private static func printable(_ b: UInt8) -> String {
        b >= 0x20 && b < 0x7F ? String(UnicodeScalar(b)) : "\\x" + String(b, radix: 16)
    }

    private mutating func literal(_ word: StaticString) throws(Error) {
        let count = word.utf8CodeUnitCount
        let matches = word.withUTF8Buffer { w in
            index + count <= bytes.count && (0..<count).allSatisfy { bytes[index + $0] == w[$0] }
        }
        guard matches else { throw error("invalid literal") }
        index += count
    }

    private mutating func enter() throws(Error) {
        depth += 1
        guard depth <= Self.maxDepth else { throw error("nesting deeper than \(Self.maxDepth)") }
        index += 1
        skipWhitespace()
    }

    private mutating func object() throws(Error) -> JSONValue {
        try enter()
        var members: [JSONValue.Member] = []
        // Duplicates are looked for by a scan while the object is small (most are) and
        // through a set once it grows: hashing every key of every route object cost
        // more than the rest of the parse.
        var keys: Set<String>? = nil
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(members)
        }
        // Most objects (a route, its params, a presentation) have 2 to 6 members: room
        // for 6 up front saves growing through 1, 2 and 4, a reallocation each.
        members.reserveCapacity(6)
        while true {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a string key") }
            let keyStart = index
            let key = try string()
            let duplicate: Bool
            if members.count < 8 {
                duplicate = members.contains { $0.key == key }
            } else {
                if keys == nil { keys = Set(members.lazy.map(\.key)) }
                duplicate = !keys!.insert(key).inserted
            }
            if duplicate { throw Error(offset: keyStart, message: "duplicate key \"\(key)\"") }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
            index += 1
            skipWhitespace()
            members.append(JSONValue.Member(key, try value()))
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input in an object") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                skipWhitespace()
            } else if bytes[index] == UInt8(ascii: "}") {
                index += 1
                depth -= 1
                return .object(members)
            } else {
                throw error("expected ',' or '}'")
            }
        }
    }

    private mutating func array() throws(Error) -> JSONValue {
        try enter()
        var items: [JSONValue] = []
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(items)
        }
        while true {
            items.append(try value())
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input in an array") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                skipWhitespace()
            } else if bytes[index] == UInt8(ascii: "]") {
                index += 1
                depth -= 1
                return .array(items)
            } else {
                throw error("expected ',' or ']'")
            }
        }
    }

    private mutating func number() throws(Error) -> JSONValue {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, Self.isDigit(bytes[index]) else { throw error("expected a digit") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, Self.isDigit(bytes[index]) { throw error("leading zero in a number") }
        } else {
            while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
        }
        var isInteger = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count, Self.isDigit(bytes[index]) else { throw error("expected a digit after '.'") }
            while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, Self.isDigit(bytes[index]) else { throw error("expected a digit in the exponent") }
            while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger, let value = Int64(text) { return .integer(value) }
        guard let value = Double(text), value.isFinite else { throw Error(offset: start, message: "number out of range") }
        return .double(value)
    }

    @inline(__always) private static func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }

    private mutating func string() throws(Error) -> String {
        index += 1
        let start = index
        var simple = true
        // Whether any byte is not ASCII: an ASCII string is valid UTF-8 as it is, and
        // most strings of a manifest are.
        var high: UInt8 = 0
        while index < bytes.count {
            let b = bytes[index]
            if b == UInt8(ascii: "\"") { break }
            if b == UInt8(ascii: "\\") { simple = false; break }
            if b < 0x20 { throw error("control character in a string") }
            high |= b
            index += 1
        }
        if simple {
            guard index < bytes.count else { throw error("unterminated string") }
            let raw = bytes[start..<index]
            index += 1
            if high < 0x80 { return String(decoding: raw, as: UTF8.self) }
            guard let text = UTF8Validation.string(raw) else {
                throw Error(offset: start, message: "string is not valid UTF-8")
            }
            return text
        }
        var out = Array(bytes[start..<index])
        while true {
            guard index < bytes.count else { throw error("unterminated string") }
            let b = bytes[index]
            if b == UInt8(ascii: "\"") { index += 1; break }
            if b < 0x20 { throw error("control character in a string") }
            if b != UInt8(ascii: "\\") {
                out.append(b)
                index += 1
                continue
            }
            index += 1
            guard index < bytes.count else { throw error("unterminated escape") }
            let e = bytes[index]
            index += 1
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800...0xDBFF).contains(scalar) {
                    guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                        throw error("unpaired surrogate")
                    }
                    index += 2
                    let low = try hex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw error("unpaired surrogate")
                }
                out.append(contentsOf: String(Unicode.Scalar(scalar)!).utf8)
            default:
                throw error("invalid escape")
            }
        }
        guard let text = UTF8Validation.string(out[...]) else {
            throw Error(offset: start, message: "string is not valid UTF-8")
        }
        return text
    }

    private mutating func hex4() throws(Error) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("truncated \\u escape") }
        var value: UInt32 = 0
        for k in 0..<4 {
            guard let d = PercentDecoding.hexValue(bytes[index + k]) else { throw error("invalid \\u escape") }
            value = value << 4 | UInt32(d)
        }
        index += 4
        return value
    }
}

