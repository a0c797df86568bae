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

    /// Where an item lies in a query's bytes (offsets from its start).
    struct Bounds {
        let key: Range<Int>
        let value: Range<Int>
        /// Whether the key has a `%XX` or `+` to decode (values are decoded when used).
        let keyIsEncoded: Bool
    }

    /// The next item of a query from `offset` on, which moves past it: split at `&`, the
    /// key at the first `=`, empty keys skipped, every `%` checked to start a `%XX`
    /// escape (a malformed one anywhere refuses the query: reading every item finds it).
    /// Offsets, not slices: a slice retains the query's buffer, and a resolve reads its
    /// query item by item in the request path.
    static func nextItem(in bytes: Span<UInt8>, from offset: inout Int) throws(Problem) -> Bounds? {
        while offset < bytes.count {
            var eq = -1
            var keyIsEncoded = false
            var i = offset
            while i < bytes.count {
                let b = bytes[i]
                // Letters and most of a URL are above every byte that means something here.
                if b > UInt8(ascii: "=") {
                    i += 1
                    continue
                }
                if b == UInt8(ascii: "&") { break }
                if b == UInt8(ascii: "%") {
                    guard i + 2 < bytes.count, isHex(bytes[i + 1]), isHex(bytes[i + 2]) else { throw .invalidPercentEncoding }
                    if eq < 0 { keyIsEncoded = true }
                    i += 3
                    continue
                }
                if eq < 0 {
                    if b == UInt8(ascii: "=") { eq = i } else if b == UInt8(ascii: "+") { keyIsEncoded = true }
                }
                i += 1
            }
            let start = offset
            offset = i + 1
            let keyEnd = eq < 0 ? i : eq
            guard keyEnd > start else { continue }
            return Bounds(key: start..<keyEnd, value: (eq < 0 ? i : eq + 1)..<i, keyIsEncoded: keyIsEncoded)
        }
        return nil
    }

    /// The items of a query, in order (``nextItem(in:from:)``), as slices with keys decoded.
    struct Items {
        private let raw: ArraySlice<UInt8>
        private var offset = 0

        init(_ raw: ArraySlice<UInt8>) {
            self.raw = raw
        }

        mutating func next() throws(Problem) -> Item? {
            var offset = self.offset
            defer { self.offset = offset }
            guard let item = try QueryString.nextItem(in: raw.span, from: &offset) else { return nil }
            let key = QueryString.slice(raw, item.key)
            return Item(key: item.keyIsEncoded ? try QueryString.decode(key)[...] : key,
                        rawValue: QueryString.slice(raw, item.value))
        }
    }

    /// The bytes of `raw` at `offsets` from its start (as ``Bounds`` gives them).
    static func slice(_ raw: ArraySlice<UInt8>, _ offsets: Range<Int>) -> ArraySlice<UInt8> {
        raw[(raw.startIndex + offsets.lowerBound)..<(raw.startIndex + offsets.upperBound)]
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
        return try decode(bytes.span, containsNUL: &containsNUL)
    }

    /// Decodes, and says whether the result holds a NUL byte.
    static func decode(_ bytes: ArraySlice<UInt8>, containsNUL: inout Bool) throws(Problem) -> [UInt8] {
        try decode(bytes.span, containsNUL: &containsNUL)
    }

    /// Decodes (into `buffer`, emptied, when given one), and says whether the result
    /// holds a NUL byte.
    static func decode(_ input: Span<UInt8>, into buffer: consuming [UInt8] = [], containsNUL: inout Bool) throws(Problem) -> [UInt8] {
        if !buffer.isEmpty { buffer.removeAll(keepingCapacity: true) }
        buffer.reserveCapacity(input.count)
        var decoded = buffer
        var nul = false
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
