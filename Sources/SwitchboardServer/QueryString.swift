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
                if i > start {
                    let keyEnd = eq ?? i
                    let rawKey = raw[start..<keyEnd]
                    let key = keyNeedsDecoding ? try Self.decode(rawKey)[...] : rawKey
                    if !key.isEmpty { items.append((key, eq.map { raw[($0 + 1)..<i] } ?? raw[i..<i])) }
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
