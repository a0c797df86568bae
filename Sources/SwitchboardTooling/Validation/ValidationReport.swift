import Switchboard
/// The outcome of a validation run: each case with its result, and JUnit XML for CI.
public struct ValidationReport: Sendable {
    public struct Entry: Sendable {
        public let testCase: ValidationCase
        public let result: ResultSummary
        public var passed: Bool { testCase.isMet(by: result) }

        public init(testCase: ValidationCase, result: ResultSummary) {
            self.testCase = testCase
            self.result = result
        }
    }

    public let source: String
    public let entries: [Entry]

    public init(source: String, entries: [Entry]) {
        self.source = source
        self.entries = entries
    }

    public var passed: Int { entries.filter(\.passed).count }
    public var failed: Int { entries.count - passed }

    /// A failure as text: the case, what was expected, what came, and why.
    public static func failureText(_ entry: Entry) -> [String] {
        ["FAIL line \(entry.testCase.line): \(entry.testCase.text)",
         "  expected \(entry.testCase.expectation), got \(entry.result.outcome)"]
            + entry.result.explanationLines.map { "  " + $0 }
    }

    /// The summary line: `N passed, N failed`.
    public var summary: String { "\(passed) passed, \(failed) failed" }

    /// JUnit XML: one testsuite, one testcase per case, failures with the explanation.
    public var junitXML: String {
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites tests=\"\(entries.count)\" failures=\"\(failed)\">\n"
        xml += "  <testsuite name=\"switchboard validate \(XMLText.escape(source))\" tests=\"\(entries.count)\" failures=\"\(failed)\" errors=\"0\" skipped=\"0\">\n"
        for entry in entries {
            let name = XMLText.escape("line \(entry.testCase.line): \(entry.testCase.text)")
            xml += "    <testcase classname=\"\(XMLText.escape(source))\" name=\"\(name)\""
            if entry.passed {
                xml += "/>\n"
            } else {
                let message = XMLText.escape("expected \(entry.testCase.expectation), got \(entry.result.outcome)")
                let body = XMLText.escape(entry.result.explanationLines.joined(separator: "\n"))
                xml += ">\n      <failure message=\"\(message)\" type=\"mismatch\">\(body)</failure>\n    </testcase>\n"
            }
        }
        xml += "  </testsuite>\n</testsuites>\n"
        return xml
    }
}
