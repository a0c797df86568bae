/// A JSON document as parsed: object members keep their order (param declarations and
/// presentation keys are ordered), numbers keep whether they were integers.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([Member])

    /// One `"key": value` of an object.
    public struct Member: Sendable, Equatable {
        public var key: String
        public var value: JSONValue
        public init(_ key: String, _ value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// The member named `key` of an object.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        for member in members where Self.sameKey(member.key, key) { return member.value }
        return nil
    }

    /// Whether two object keys are the same, lengths compared first: most keys differ
    /// in length and are passed over without a String comparison (the manifest
    /// decoder's main cost otherwise).
    @inline(__always)
    static func sameKey(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && a == b
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var objectMembers: [Member]? {
        if case .object(let m) = self { return m }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The kind of value, for messages: "a string", "an object", ...
    package var kindDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .integer, .double: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

extension JSONValue {
    /// Compact JSON bytes; with `sortedKeys`, object keys in byte order at every level
    /// (the canonical form whose SHA-256 is the manifest ETag).
    package func serialized(sortedKeys: Bool = false) -> [UInt8] {
        var writer = JSONWriter()
        writer.write(self, sortedKeys: sortedKeys)
        return writer.bytes
    }
}

extension JSONValue {
    /// The value with every object's members in key order (as canonical JSON writes them).
    /// Only what is out of order is rebuilt: a document already in key order (a canonical
    /// manifest, what clients load) is walked once and nothing is copied.
    package func sortingKeys() -> JSONValue { reordered() ?? self }

    /// The value in key order, or nil when it already is.
    private func reordered() -> JSONValue? {
        switch self {
        case .object(let members):
            var rebuilt: [Member]? = nil
            for (i, member) in members.enumerated() {
                guard let value = member.value.reordered() else { continue }
                if rebuilt == nil { rebuilt = members }
                rebuilt![i] = Member(member.key, value)
            }
            let ordered = rebuilt ?? members
            var inOrder = true
            for i in ordered.indices.dropFirst() where !JSONWriter.keyOrder(ordered[i - 1].key, ordered[i].key) {
                inOrder = false
                break
            }
            if inOrder { return rebuilt.map { .object($0) } }
            return .object(ordered.sorted { JSONWriter.keyOrder($0.key, $1.key) })
        case .array(let items):
            var rebuilt: [JSONValue]? = nil
            for (i, item) in items.enumerated() {
                guard let value = item.reordered() else { continue }
                if rebuilt == nil { rebuilt = items }
                rebuilt![i] = value
            }
            return rebuilt.map { .array($0) }
        default:
            return nil
        }
    }
}
