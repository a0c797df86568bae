import Switchboard
/// Changes a team has accepted (`switchboard diff --ignore FILE`): one fingerprint a
/// line and the reason it is accepted; blank lines and `#` comments skipped.
///
/// ```text
/// # retired with app 6: JIRA-1234
/// 3f2a9c1b7d4e6f80 show pages now open the web
/// ```
package enum IgnoreList {
    /// Fingerprint -> reason and line, or the first line that cannot be read.
    package static func parse(_ text: String) throws(ValidationCase.SyntaxError) -> [String: DiffReport.Accepted] {
        var out: [String: DiffReport.Accepted] = [:]
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingWhitespace.trimmingCharacters(in: "\r")
            if line.isEmpty || line.hasPrefix("#") { continue }
            let parts = line.split(maxSplits: 1, whereSeparator: { $0 == " " || $0 == "\t" })
            let fingerprint = String(parts[0])
            guard fingerprint.count == 16, fingerprint.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
                throw .init(line: index + 1, message: "expected a 16-digit fingerprint from `switchboard diff`, got '\(fingerprint)'")
            }
            let reason = parts.count > 1 ? parts[1].trimmingWhitespace : ""
            guard !reason.isEmpty else {
                throw .init(line: index + 1, message: "give the reason \(fingerprint) is accepted after it")
            }
            out[fingerprint] = DiffReport.Accepted(reason: reason, line: index + 1)
        }
        return out
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: Character) -> String {
        var s = Substring(self)
        while s.last == set { s = s.dropLast() }
        return String(s)
    }
}
