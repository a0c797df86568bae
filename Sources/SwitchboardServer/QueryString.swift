import RouteMatching

/// A request's query string decoded as `application/x-www-form-urlencoded`, exactly
/// once: `+` is a space, `%XX` a byte. Values stay bytes (a `url=` value is handed to
/// the engine, which checks its own encoding).
struct QueryString {
    /// Why a query cannot be read.
    enum Problem: Error, Equatable {
        case invalidPercentEncoding
    }

    /// Keys decoded (slices of the target when they needed no decoding), values raw
    /// until asked for.
    var items: [(key: ArraySlice<UInt8>, rawValue: ArraySlice<UInt8>)] = []

    init(_ raw: ArraySlice<UInt8>) throws(Problem) {
        guard PercentDecoding.isWellFormed(raw) else { throw .invalidPercentEncoding }
        var start = raw.startIndex
        while start <= raw.endIndex {
            let end = raw[start...].firstIndex(of: UInt8(ascii: "&")) ?? raw.endIndex
            if end > start {
                let eq = raw[start..<end].firstIndex(of: UInt8(ascii: "=")) ?? end
                let rawKey = raw[start..<eq]
                let key = rawKey.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") })
                    ? try Self.decode(rawKey)[...] : rawKey
                if !key.isEmpty { items.append((key, eq < end ? raw[(eq + 1)..<end] : raw[end..<end])) }
            }
            start = end + 1
        }
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
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let b = bytes[i]
            if b == UInt8(ascii: "%") {
                guard i + 2 < bytes.endIndex, let hi = PercentDecoding.hexValue(bytes[i + 1]),
                      let lo = PercentDecoding.hexValue(bytes[i + 2]) else { throw .invalidPercentEncoding }
                out.append(hi << 4 | lo)
                i += 3
            } else {
                out.append(b == UInt8(ascii: "+") ? UInt8(ascii: " ") : b)
                i += 1
            }
        }
        return out
    }
}
