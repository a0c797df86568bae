import RouteMatching

/// A request's query string decoded as `application/x-www-form-urlencoded`, exactly
/// once: `+` is a space, `%XX` a byte. Values stay bytes (a `url=` value is handed to
/// the engine, which checks its own encoding).
struct QueryString {
    /// Why a query cannot be read.
    enum Problem: Error, Equatable {
        case invalidPercentEncoding
    }

    /// An item as positions in ``raw``: no copies, no references to count per item.
    struct Item {
        let key: Range<Int>
        let value: Range<Int>
        /// The key decoded, when it held `%` or `+`.
        let decodedKey: [UInt8]?
    }

    let raw: ArraySlice<UInt8>
    private(set) var items: [Item] = []

    /// The item's key, decoded.
    func key(_ item: Item) -> ArraySlice<UInt8> { item.decodedKey?[...] ?? raw[item.key] }

    /// The item's value as sent (decode it with ``decode(_:)``).
    func rawValue(_ item: Item) -> ArraySlice<UInt8> { raw[item.value] }

    init(_ raw: ArraySlice<UInt8>) throws(Problem) {
        self.raw = raw
        // Room for every item up front (one allocation, not one per doubling).
        var separators = 0
        for b in raw { separators &+= b == UInt8(ascii: "&") ? 1 : 0 }
        items.reserveCapacity(separators + 1)
        // One pass: items split at `&`, keys at the first `=`, every `%` checked to
        // start a `%XX` escape (a malformed one anywhere refuses the whole query).
        var start = raw.startIndex
        var eq: Int? = nil
        var keyNeedsDecoding = false
        var i = raw.startIndex
        while i <= raw.endIndex {
            let b = i < raw.endIndex ? raw[i] : UInt8(ascii: "&")
            switch b {
            case UInt8(ascii: "&"):
                let keyEnd = eq ?? i
                if keyEnd > start {
                    let value = eq.map { ($0 + 1)..<i } ?? i..<i
                    let decodedKey = keyNeedsDecoding ? try Self.decode(raw[start..<keyEnd]) : nil
                    items.append(Item(key: start..<keyEnd, value: value, decodedKey: decodedKey))
                }
                start = i + 1
                eq = nil
                keyNeedsDecoding = false
            case UInt8(ascii: "="):
                if eq == nil { eq = i }
            case UInt8(ascii: "%"):
                guard i + 2 < raw.endIndex, PercentDecoding.hexValue(raw[i + 1]) != nil,
                      PercentDecoding.hexValue(raw[i + 2]) != nil else { throw .invalidPercentEncoding }
                if eq == nil { keyNeedsDecoding = true }
                i += 2
            case UInt8(ascii: "+"):
                if eq == nil { keyNeedsDecoding = true }
            default:
                break
            }
            i += 1
        }
    }

    /// Every value of `key`, decoded.
    func values(_ key: String) -> [[UInt8]] {
        var out: [[UInt8]] = []
        for item in items where self.key(item).elementsEqual(key.utf8) {
            if let value = try? Self.decode(rawValue(item)) { out.append(value) }
        }
        return out
    }

    static func decode(_ bytes: ArraySlice<UInt8>) throws(Problem) -> [UInt8] {
        var containsNUL = false
        return try decode(bytes, containsNUL: &containsNUL)
    }

    /// Decodes, and says whether the result holds a NUL byte.
    static func decode(_ bytes: ArraySlice<UInt8>, containsNUL: inout Bool) throws(Problem) -> [UInt8] {
        var nul = false
        let decoded = try [UInt8](capacity: bytes.count) { (out: inout OutputSpan<UInt8>) throws(Problem) in
            var i = bytes.startIndex
            while i < bytes.endIndex {
                var b = bytes[i]
                if b == UInt8(ascii: "%") {
                    guard i + 2 < bytes.endIndex, let hi = PercentDecoding.hexValue(bytes[i + 1]),
                          let lo = PercentDecoding.hexValue(bytes[i + 2]) else { throw .invalidPercentEncoding }
                    b = hi << 4 | lo
                    i += 3
                } else {
                    if b == UInt8(ascii: "+") { b = UInt8(ascii: " ") }
                    i += 1
                }
                nul = nul || b == 0
                out.append(b)
            }
        }
        containsNUL = nul
        return decoded
    }
}
