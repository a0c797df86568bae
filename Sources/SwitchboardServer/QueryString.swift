import RouteMatching

/// A request's query string decoded as `application/x-www-form-urlencoded`, exactly
/// once: `+` is a space, `%XX` a byte. Values stay bytes (a `url=` value is handed to
/// the engine, which checks its own encoding).
struct QueryString {
    /// Why a query cannot be read.
    enum Problem: Error, Equatable {
        case invalidPercentEncoding
    }

    var items: [(key: [UInt8], value: [UInt8])] = []

    init(_ raw: ArraySlice<UInt8>) throws(Problem) {
        var start = raw.startIndex
        while start <= raw.endIndex {
            let end = raw[start...].firstIndex(of: UInt8(ascii: "&")) ?? raw.endIndex
            if end > start {
                let eq = raw[start..<end].firstIndex(of: UInt8(ascii: "=")) ?? end
                let key = try Self.decode(raw[start..<eq])
                let value = eq < end ? try Self.decode(raw[(eq + 1)..<end]) : []
                if !key.isEmpty { items.append((key, value)) }
            }
            start = end + 1
        }
    }

    /// Every value of `key`.
    func values(_ key: String) -> [[UInt8]] {
        let k = Array(key.utf8)
        return items.filter { $0.key == k }.map(\.value)
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
