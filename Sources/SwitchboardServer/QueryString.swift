/// A request's query string read as `application/x-www-form-urlencoded`, exactly once:
/// `+` is a space, `%XX` a byte. Values stay bytes (a `url=` value is handed to the
/// engine, which checks its own encoding).
///
/// Items are read in one pass as they are asked for (``Items``), with nothing allocated
/// unless a key itself is encoded; `init` collects them for endpoints that look a key up.
struct QueryString {
    /// Why a query cannot be read.
    enum Problem: Error, Equatable {
        case invalidPercentEncoding
    }

    /// An item: its key decoded, its value as sent (decode it with ``decode(_:)``).
    struct Item {
        let key: ArraySlice<UInt8>
        let rawValue: ArraySlice<UInt8>
    }

    /// The items of a query, in order: split at `&`, keys at the first `=`, empty keys
    /// skipped, every `%` checked to start a `%XX` escape (a malformed one anywhere
    /// refuses the query: reading every item finds it).
    struct Items {
        private let raw: ArraySlice<UInt8>
        private var start: Int

        init(_ raw: ArraySlice<UInt8>) {
            self.raw = raw
            start = raw.startIndex
        }

        mutating func next() throws(Problem) -> Item? {
            while start < raw.endIndex {
                var eq: Int? = nil
                var keyNeedsDecoding = false
                var i = start
                scan: while i < raw.endIndex {
                    switch raw[i] {
                    case UInt8(ascii: "&"):
                        break scan
                    case UInt8(ascii: "="):
                        if eq == nil { eq = i }
                    case UInt8(ascii: "%"):
                        guard i + 2 < raw.endIndex, QueryString.isHex(raw[i + 1]),
                              QueryString.isHex(raw[i + 2]) else { throw .invalidPercentEncoding }
                        if eq == nil { keyNeedsDecoding = true }
                        i += 2
                    case UInt8(ascii: "+"):
                        if eq == nil { keyNeedsDecoding = true }
                    default:
                        break
                    }
                    i += 1
                }
                let itemStart = start
                start = i + 1
                let keyEnd = eq ?? i
                guard keyEnd > itemStart else { continue }
                let key = keyNeedsDecoding ? try QueryString.decode(raw[itemStart..<keyEnd])[...] : raw[itemStart..<keyEnd]
                return Item(key: key, rawValue: raw[(eq.map { $0 + 1 } ?? i)..<i])
            }
            return nil
        }
    }

    let items: [Item]

    /// Every item, read at once.
    init(_ raw: ArraySlice<UInt8>) throws(Problem) {
        var all: [Item] = []
        var reader = Items(raw)
        while let item = try reader.next() { all.append(item) }
        items = all
    }

    /// Every value of `key`, decoded.
    func values(_ key: String) -> [[UInt8]] {
        var out: [[UInt8]] = []
        for item in items where item.key.elementsEqual(key.utf8) {
            if let value = try? Self.decode(item.rawValue) { out.append(value) }
        }
        return out
    }

    static func decode(_ bytes: ArraySlice<UInt8>) throws(Problem) -> [UInt8] {
        var containsNUL = false
        return try decode(bytes, containsNUL: &containsNUL)
    }

    /// Decodes, and says whether the result holds a NUL byte.
    static func decode(_ bytes: ArraySlice<UInt8>, containsNUL: inout Bool) throws(Problem) -> [UInt8] {
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var nul = false
        let input = bytes.span
        var i = 0
        while i < input.count {
            var b = input[i]
            if b == UInt8(ascii: "%") {
                guard i + 2 < input.count, isHex(input[i + 1]), isHex(input[i + 2]) else { throw .invalidPercentEncoding }
                b = hexValue(input[i + 1]) << 4 | hexValue(input[i + 2])
                i += 3
            } else {
                if b == UInt8(ascii: "+") { b = UInt8(ascii: " ") }
                i += 1
            }
            nul = nul || b == 0
            decoded.append(b)
        }
        containsNUL = nul
        return decoded
    }

    // Hex digits, here rather than RouteMatching's PercentDecoding.hexValue: across the
    // module boundary that one is called, not inlined, twice per escape (a decoded URL
    // is mostly escapes).
    @inline(__always) private static func isHex(_ b: UInt8) -> Bool {
        (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || (b | 0x20 >= UInt8(ascii: "a") && b | 0x20 <= UInt8(ascii: "f"))
    }

    /// The value of a byte ``isHex(_:)`` accepted.
    @inline(__always) private static func hexValue(_ b: UInt8) -> UInt8 {
        b <= UInt8(ascii: "9") ? b &- UInt8(ascii: "0") : (b | 0x20) &- UInt8(ascii: "a") &+ 10
    }
}
