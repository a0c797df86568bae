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
        guard let key = try nextKey(in: bytes, from: &offset) else { return nil }
        return Bounds(key: key.range, value: try value(of: key, in: bytes, from: &offset), keyIsEncoded: key.isEncoded)
    }

    /// Where a key lies, whether it has anything to decode, and whether a value follows.
    struct Key {
        let range: Range<Int>
        let isEncoded: Bool
        let hasValue: Bool
    }

    /// The key of the next item from `offset` on (items with an empty key skipped, their
    /// values checked): `offset` moves to its value, past the `=`, or past the item when
    /// it has none. Read its value next, with ``valueEnd(in:from:)`` or
    /// ``decodeValue(in:from:into:containsNUL:)``.
    static func nextKey(in bytes: Span<UInt8>, from offset: inout Int) throws(Problem) -> Key? {
        while offset < bytes.count {
            var isEncoded = false
            var i = offset
            while i < bytes.count {
                let b = bytes[i]
                // Letters are above every byte that means something here.
                if b > UInt8(ascii: "=") {
                    i += 1
                    continue
                }
                if b == UInt8(ascii: "=") || b == UInt8(ascii: "&") { break }
                if b == UInt8(ascii: "%") {
                    _ = try escapedByte(bytes, at: i)
                    i += 3
                } else {
                    i += 1
                }
                if b == UInt8(ascii: "+") || b == UInt8(ascii: "%") { isEncoded = true }
            }
            let start = offset
            let hasValue = i < bytes.count && bytes[i] == UInt8(ascii: "=")
            offset = i + 1
            if i > start { return Key(range: start..<i, isEncoded: isEncoded, hasValue: hasValue) }
            if hasValue { _ = try valueEnd(in: bytes, from: &offset) }
        }
        return nil
    }

    /// The byte the `%XX` escape at `i` stands for; throws when the `%` at `i` starts
    /// none. (Scanners call it for the check alone.)
    @inline(__always)
    private static func escapedByte(_ bytes: Span<UInt8>, at i: Int) throws(Problem) -> UInt8 {
        guard i + 2 < bytes.count else { throw .invalidPercentEncoding }
        let high = hexDigit(bytes[i + 1]), low = hexDigit(bytes[i + 2])
        guard (high | low) < 16 else { throw .invalidPercentEncoding }
        return high << 4 | low
    }

    /// Where the value of `key` (just read by ``nextKey(in:from:)``) lies, its escapes
    /// checked (empty after a key without `=`); `offset` moves past the item.
    static func value(of key: Key, in bytes: Span<UInt8>, from offset: inout Int) throws(Problem) -> Range<Int> {
        key.hasValue ? try valueEnd(in: bytes, from: &offset) : key.range.upperBound..<key.range.upperBound
    }

    /// The value from `offset` (where ``nextKey(in:from:)`` left it) to the next `&`, its
    /// escapes checked; `offset` moves past the item.
    static func valueEnd(in bytes: Span<UInt8>, from offset: inout Int) throws(Problem) -> Range<Int> {
        var i = offset
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "&") { break }
            if b == UInt8(ascii: "%") {
                _ = try escapedByte(bytes, at: i)
                i += 3
            } else {
                i += 1
            }
        }
        defer { offset = i + 1 }
        return offset..<i
    }

    /// The value from `offset` to the next `&` decoded into `buffer` (emptied) as it is
    /// read, and whether it holds a NUL byte: one pass over it, not a check and then a
    /// decode. `offset` moves past the item.
    static func decodeValue(in input: Span<UInt8>, from offset: inout Int, into buffer: consuming [UInt8] = [],
                            containsNUL: inout Bool) throws(Problem) -> [UInt8] {
        if !buffer.isEmpty { buffer.removeAll(keepingCapacity: true) }
        var decoded = buffer
        var nul = false
        var end = offset
        // Written through an output span sized to the rest of the input (a value decodes
        // to at most its length): a byte costs the span's bound check, not the array's
        // uniqueness and growth checks. The loop's state is its own (captured variables
        // would be read and written through memory). Not for an empty value: appending
        // nothing to an empty array writes the count of the runtime's one empty-array
        // storage, shared by every thread (Swift 6.3; a data race ThreadSanitizer sees).
        if offset < input.count {
            try decoded.append(addingCapacity: input.count - offset) { (out: inout OutputSpan<UInt8>) throws(Problem) in
                var i = offset
                var sawNUL = false
                while i < input.count {
                    var b = input[i]
                    if b > UInt8(ascii: "+") {
                        // Above every byte with a meaning here (NUL, `%`, `&`, `+`): most of a URL.
                        i += 1
                    } else if b == UInt8(ascii: "&") {
                        break
                    } else if b == UInt8(ascii: "%") {
                        b = try escapedByte(input, at: i)
                        i += 3
                        sawNUL = sawNUL || b == 0
                    } else {
                        if b == UInt8(ascii: "+") { b = UInt8(ascii: " ") }
                        i += 1
                        sawNUL = sawNUL || b == 0
                    }
                    out.append(b)
                }
                end = i
                nul = sawNUL
            }
        }
        offset = end + 1
        containsNUL = nul
        return decoded
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

    /// Decodes a key or value (no `&` in it), and says whether the result holds a NUL byte.
    static func decode(_ input: Span<UInt8>, containsNUL: inout Bool) throws(Problem) -> [UInt8] {
        var offset = 0
        return try decodeValue(in: input, from: &offset, containsNUL: &containsNUL)
    }

    /// The value of a hex digit, or a value above 15 for any other byte: an escape's
    /// check and its decoding in one (``escapedByte(_:at:)``). Here rather than
    /// RouteMatching's `PercentDecoding.hexValue`: across the module boundary that one is
    /// called, not inlined, twice per escape (a decoded URL is mostly escapes).
    @inline(__always) private static func hexDigit(_ b: UInt8) -> UInt8 {
        let digit = b &- UInt8(ascii: "0")
        if digit < 10 { return digit }
        let letter = (b | 0x20) &- UInt8(ascii: "a")
        return letter < 6 ? letter &+ 10 : 0xFF
    }
}
