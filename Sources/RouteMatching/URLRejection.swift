/// Why a URL was refused outright (status `rejected`): each reason's text is the result's
/// `reason`, and docs/manifest.md lists every one (a test holds the doc to `allCases`).
package enum URLRejection: String, Error, Sendable, Equatable, CaseIterable, CustomStringConvertible {
    case tooLong = "longer than 8192 bytes"
    case controlCharacter = "control character"
    case whitespace = "whitespace"
    case backslash = "backslash"
    case invalidPercentEncoding = "invalid percent-encoding"
    case invalidUTF8 = "percent-decoded bytes are not UTF-8"
    case userinfo = "userinfo in URL"
    case unsafeScheme = "unsafe scheme"
    case invalidHost = "invalid host"
    case invalidPort = "invalid port"
    case missingHost = "missing host"
    case ambiguousSlashes = "three or more slashes before the host"

    /// The reason as written in results.
    package var description: String { rawValue }
}
