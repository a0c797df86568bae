/// A URL the app owns, normalized and split (docs/manifest.md).
package struct InternalURL: Sendable, Equatable {
    /// The normalized host key (`artsy.net`, `localhost:8080`), or nil for a path-only or
    /// app-scheme URL: host-restricted routes never apply to those.
    package var host: String?
    /// Path segments: dot segments removed, empty ones dropped, each percent-decoded once.
    package var segmentBuffer: SegmentBuffer
    /// Query items in order of appearance, form-decoded; empty keys skipped.
    package var query: [(key: String, value: String)]
    /// The decoded fragment, present whenever the URL has `#`.
    package var fragment: String? {
        get { fragmentBytes.map { String(decoding: $0, as: UTF8.self) } }
        set { fragmentBytes = newValue.map { Array($0.utf8) } }
    }
    /// The decoded fragment's UTF-8 bytes. Bytes rather than a String, eight bytes to a
    /// String's sixteen: an InternalURL larger than 56 bytes is copied (a retain and
    /// release of each of its references) where it can otherwise be moved.
    package var fragmentBytes: [UInt8]?

    package init(host: String?, segments: [String], query: [(key: String, value: String)] = [], fragment: String? = nil) {
        self.init(host: host, segmentBuffer: SegmentBuffer(segments), query: query, fragment: fragment)
    }

    package init(host: String?, segmentBuffer: SegmentBuffer, query: [(key: String, value: String)] = [], fragment: String? = nil) {
        self.host = host
        self.segmentBuffer = segmentBuffer
        self.query = query
        self.fragmentBytes = fragment.map { Array($0.utf8) }
    }

    /// A URL with its fragment given as its decoded UTF-8 bytes.
    init(host: String?, segmentBuffer: SegmentBuffer, query: [(key: String, value: String)], fragmentBytes: [UInt8]?) {
        self.host = host
        self.segmentBuffer = segmentBuffer
        self.query = query
        self.fragmentBytes = fragmentBytes
    }

    /// The path segments as text.
    package var segments: [String] { segmentBuffer.strings }

    /// The normalized path, segments re-joined with `/`. Whatever would not read back as
    /// the same segment is percent-encoded (`/`, `%`, `?`, `#`, `\`, spaces and control
    /// characters), so the path classifies again to these segments.
    package var path: String {
        if segments.isEmpty { return "/" }
        var out = ""
        for segment in segments {
            out.append("/")
            for scalar in segment.unicodeScalars {
                let v = scalar.value
                let escape = v < 0x20 || v == 0x7F || (0x80...0x9F).contains(v) || v == 0xFEFF || v == 0x200B
                    || scalar.properties.isWhitespace || "/%?#\\".unicodeScalars.contains(scalar)
                if escape {
                    for byte in String(scalar).utf8 {
                        out += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true)
                    }
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    package static func == (lhs: InternalURL, rhs: InternalURL) -> Bool {
        lhs.host == rhs.host && lhs.segmentBuffer == rhs.segmentBuffer && lhs.fragmentBytes == rhs.fragmentBytes
            && lhs.query.map(\.key) == rhs.query.map(\.key) && lhs.query.map(\.value) == rhs.query.map(\.value)
    }
}

/// What a URL is to the app (docs/manifest.md).
package enum ClassifiedURL: Sendable, Equatable {
    case `internal`(InternalURL)
    case external
    case rejected(URLRejection)
}
