/// Host normalization shared by URLs and the manifest's `hosts` list (docs/manifest.md,
/// "Hosts"): lowercase, one `www.` and trailing dots stripped, IDNA for non-ASCII,
/// IPv6 literals bracketed, default ports dropped, other ports kept as numbers.
package enum HostName {
    /// The comparison key of a host and port, e.g. `artsy.net` or `localhost:8080`.
    /// `defaultPorts` are the ports that count as no port (80/443 for http(s)).
    package static func key(host: ArraySlice<UInt8>, port: ArraySlice<UInt8>?, defaultPorts: [Int] = [80, 443]) -> Result<String, URLRejection> {
        let name: String
        switch normalizedName(host) {
        case .success(let n): name = n
        case .failure(let e): return .failure(e)
        }
        guard let port, !port.isEmpty else { return .success(name) }
        var value = 0
        for b in port {
            guard b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") else { return .failure(.invalidPort) }
            value = value * 10 + Int(b - UInt8(ascii: "0"))
            guard value <= 65535 else { return .failure(.invalidPort) }
        }
        return .success(defaultPorts.contains(value) ? name : "\(name):\(value)")
    }

    /// The key of a host as written in the manifest (`artsy.net`, `localhost:8080`).
    package static func key(listed: String) -> Result<String, URLRejection> {
        let bytes = Array(listed.utf8)
        if bytes.first == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")) else { return .failure(.invalidHost) }
            let rest = bytes[(close + 1)...]
            if rest.isEmpty { return key(host: bytes[...close], port: nil) }
            guard rest.first == UInt8(ascii: ":") else { return .failure(.invalidHost) }
            return key(host: bytes[...close], port: rest.dropFirst())
        }
        if let colon = bytes.firstIndex(of: UInt8(ascii: ":")) {
            return key(host: bytes[..<colon], port: bytes[(colon + 1)...])
        }
        return key(host: bytes[...], port: nil)
    }

    private static func isAllowed(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): return true
        case UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "!"), UInt8(ascii: "$"),
             UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","),
             UInt8(ascii: ";"), UInt8(ascii: "="), UInt8(ascii: "-"):
            return true
        default: return false
        }
    }

    static func normalizedName(_ raw: ArraySlice<UInt8>) -> Result<String, URLRejection> {
        if raw.first == UInt8(ascii: "[") {
            guard raw.count > 2, raw.last == UInt8(ascii: "]") else { return .failure(.invalidHost) }
            var out = [UInt8]()
            for b in raw {
                let lower = ASCII.lowercased(b)
                switch lower {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
                     UInt8(ascii: ":"), UInt8(ascii: "."), UInt8(ascii: "["), UInt8(ascii: "]"):
                    out.append(lower)
                default:
                    return .failure(.invalidHost)
                }
            }
            return .success(String(decoding: out, as: UTF8.self))
        }
        var bytes: ArraySlice<UInt8>
        if raw.contains(where: { $0 >= 0x80 }) {
            guard let idna = toASCII(raw) else { return .failure(.invalidHost) }
            bytes = idna[...]
        } else if raw.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) {
            bytes = raw.map(ASCII.lowercased)[...]
        } else {
            bytes = raw
        }
        while bytes.last == UInt8(ascii: ".") { bytes.removeLast() }
        guard !bytes.isEmpty, bytes.allSatisfy(isAllowed) else { return .failure(.invalidHost) }
        if bytes.count > 4, bytes.starts(with: "www.".utf8) { bytes.removeFirst(4) }
        return .success(String(decoding: bytes, as: UTF8.self))
    }

    /// A small IDNA ToASCII: fullwidth forms and ideographic full stops mapped, lowercased,
    /// each non-ASCII label Punycode-encoded with `xn--`.
    private static func toASCII(_ raw: ArraySlice<UInt8>) -> [UInt8]? {
        guard let text = UTF8Validation.string(raw[...]) else { return nil }
        var mapped = ""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x3002, 0xFF0E, 0xFF61: mapped.append(".")
            case 0xFF01...0xFF5E: mapped.unicodeScalars.append(Unicode.Scalar(scalar.value - 0xFEE0)!)
            default: mapped.unicodeScalars.append(scalar)
            }
        }
        var out = [UInt8]()
        for (i, label) in mapped.lowercased().split(separator: ".", omittingEmptySubsequences: false).enumerated() {
            if i > 0 { out.append(UInt8(ascii: ".")) }
            let scalars = Array(label.unicodeScalars)
            if scalars.allSatisfy(\.isASCII) {
                out.append(contentsOf: label.utf8)
            } else {
                guard let encoded = Punycode.encode(scalars) else { return nil }
                out.append(contentsOf: "xn--".utf8)
                out.append(contentsOf: encoded.utf8)
            }
        }
        return out
    }
}
