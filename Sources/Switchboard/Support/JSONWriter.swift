import RouteMatching
import SystemSupport

/// A small byte-level JSON writer that writes what JavaScript's `JSON.stringify` writes
/// for the same value (docs/clients.md: a client's result is the server's body byte for byte):
/// strings escaped per RFC 8259 (quotes, backslashes, control characters; U+2028 and
/// U+2029 pass, as `JSON.stringify` lets them), other UTF-8 passed through; numbers as
/// ECMAScript's `Number.prototype.toString` spells them; object members whose key is an
/// array index (`"0"`, `"42"`) first, in numeric order, as a JavaScript object holds them.
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

    /// A number as ECMAScript's `Number.prototype.toString` writes it (`1e+21`, `1e-7`,
    /// `100000000000000000000`): the shortest digits that read back as the same double,
    /// which Swift's `description` finds too, placed by ECMAScript's rules.
    package mutating func double(_ value: Double) {
        guard value.isFinite else { return raw("null") }
        if value == value.rounded(), abs(value) < 1e15 { return integer(Int64(value)) }
        // `description` is `[-]D[.DDD][e±X]`: its digits without the point, and the
        // exponent n of ECMAScript's 0.DDD × 10^n.
        var digits: [UInt8] = []
        var pointAt: Int? = nil
        var exponent = 0
        var text = Array(value.magnitude.description.utf8)[...]
        if let e = text.firstIndex(where: { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) {
            exponent = Int(String(decoding: text[(e + 1)...], as: UTF8.self)) ?? 0
            text = text[..<e]
        }
        for b in text {
            if b == UInt8(ascii: ".") { pointAt = digits.count } else { digits.append(b) }
        }
        var n = (pointAt ?? digits.count) + exponent
        while digits.count > 1, digits.first == UInt8(ascii: "0") { digits.removeFirst(); n -= 1 }
        while digits.count > 1, digits.last == UInt8(ascii: "0") { digits.removeLast() }
        let k = digits.count
        if value < 0 { byte(UInt8(ascii: "-")) }
        if k <= n && n <= 21 {
            bytes += digits
            bytes += repeatElement(UInt8(ascii: "0"), count: n - k)
        } else if 0 < n && n <= 21 {
            bytes += digits[..<n]
            byte(UInt8(ascii: "."))
            bytes += digits[n...]
        } else if -6 < n && n <= 0 {
            raw("0.")
            bytes += repeatElement(UInt8(ascii: "0"), count: -n)
            bytes += digits
        } else {
            byte(digits[0])
            if k > 1 {
                byte(UInt8(ascii: "."))
                bytes += digits[1...]
            }
            byte(UInt8(ascii: "e"))
            byte(n - 1 < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
            integer(Int64(abs(n - 1)))
        }
    }

    /// Whether `key` is an array index (`0` to `4294967294`, no leading zero): a
    /// JavaScript object holds such members first, in numeric order.
    static func isArrayIndex(_ key: String) -> Bool {
        let utf8 = key.utf8
        guard let first = utf8.first, first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9"), utf8.count <= 10 else { return false }
        if first == UInt8(ascii: "0") { return utf8.count == 1 }
        var value: UInt64 = 0
        for b in utf8 {
            guard b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") else { return false }
            value = value * 10 + UInt64(b - UInt8(ascii: "0"))
        }
        return value < 4_294_967_295
    }

    /// Members in the order a JavaScript object holds them: array indices first, by value,
    /// then the rest as given. Nil when they are in that order already (nearly always:
    /// keys that are numbers are rare).
    static func inJavaScriptOrder<Member>(_ members: [Member], key: (Member) -> String) -> [Member]? {
        guard members.contains(where: { isArrayIndex(key($0)) }) else { return nil }
        let indices = members.filter { isArrayIndex(key($0)) }.sorted { UInt64(key($0))! < UInt64(key($1))! }
        return indices + members.filter { !isArrayIndex(key($0)) }
    }

    /// Whether any byte needs escaping (control characters, `"`, `\`). Branch-free over
    /// the whole span, which lets the compiler vectorize it: most strings need none.
    @inline(__always)
    static func needsEscaping(_ span: Span<UInt8>) -> Bool {
        var special: UInt8 = 0
        for i in span.indices {
            let b = span[i]
            special |= (b < 0x20 ? 1 : 0) | (b == UInt8(ascii: "\"") ? 1 : 0) | (b == UInt8(ascii: "\\") ? 1 : 0)
        }
        return special != 0
    }

    /// Writes `text` as a JSON string with its quotes.
    package mutating func string(_ text: String) {
        text.withUTF8Span { span in
            if Self.needsEscaping(span) { return escaped(span) }
            bytes.append(copying: span, between: UInt8(ascii: "\""))
        }
    }

    /// Writes bytes known to be valid UTF-8 as a JSON string with its quotes, without
    /// building a String first. `plain`: the caller knows they need no escaping
    /// (printable ASCII without `"` or `\`, as URL screening finds them), and they are not
    /// looked at again.
    package mutating func string(validUTF8 text: [UInt8], plain: Bool = false) {
        text.withSpan { span in
            if !plain && Self.needsEscaping(span) { return escaped(span) }
            bytes.append(copying: span, between: UInt8(ascii: "\""))
        }
    }

    /// ``string(validUTF8:plain:)`` for part of a buffer (a path segment); with
    /// `lowercasingASCII`, ASCII capitals are written lowercased. (Kept apart from the whole
    /// array's form, which every result calls for its URL: a slice costs more a call.)
    package mutating func string(validUTF8 text: ArraySlice<UInt8>, lowercasingASCII: Bool = false, plain: Bool = false) {
        let span = text.span
        if !plain && Self.needsEscaping(span) {
            guard lowercasingASCII else { return escaped(span) }
            let lowered = ContiguousArray(text.lazy.map(ASCII.lowercased))
            return escaped(lowered.span)
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
        // Beyond ±(2^53 − 1) a JavaScript number is a double: written as one, as it reads back.
        case .integer(let i): i.magnitude <= 9_007_199_254_740_991 ? integer(i) : double(Double(i))
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
            let ordered = sortedKeys ? members.sorted { Self.keyOrder($0.key, $1.key) } : Self.inJavaScriptOrder(members, key: \.key) ?? members
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
