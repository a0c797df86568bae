import Switchboard
/// The outcome of a validation run: each case with its result, and JUnit XML for CI.
package struct ValidationReport: Sendable {
    package struct Entry: Sendable {
        package let testCase: ValidationCase
        package let result: ResultSummary
        package var passed: Bool { testCase.isMet(by: result) }

        package init(testCase: ValidationCase, result: ResultSummary) {
            self.testCase = testCase
            self.result = result
        }
    }

    package let source: String
    package let entries: [Entry]

    package init(source: String, entries: [Entry]) {
        self.source = source
        self.entries = entries
    }

    package var passed: Int { entries.filter(\.passed).count }
    package var failed: Int { entries.count - passed }

    /// A failure as text: the case, what was expected, what came, and why.
    package static func failureText(_ entry: Entry) -> [String] {
        ["FAIL line \(entry.testCase.line): \(entry.testCase.text)",
         "  expected \(entry.testCase.expectation), got \(entry.result.outcome)"]
            + entry.result.explanationLines.map { "  " + $0 }
    }

    /// The summary line: `N passed, N failed`.
    package var summary: String { "\(passed) passed, \(failed) failed" }

    /// JUnit XML: one testsuite, one testcase per case, failures with the explanation.
    package var junitXML: String {
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
