import Switchboard
/// JUnit XML for CI dashboards: one test case per finding (a route and how its URLs'
/// outcome changed; failed at or above `--fail-on`, skipped when accepted), one passing
/// case when nothing changed.
package struct DiffJUnitRenderer: DiffRenderer {
    package init() {}

    package func render(_ report: DiffReport) -> String {
        let findings = report.findings, accepted = report.acceptedFindings
        let failures = findings.filter { report.isFailure($0.changes[0]) }.count
        let total = max(1, findings.count + accepted.count)
        let suite = XMLText.escape("switchboard diff \(report.oldFile) \(report.newFile)")
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites tests=\"\(total)\" failures=\"\(failures)\">\n"
        xml += "  <testsuite name=\"\(suite)\" tests=\"\(total)\" failures=\"\(failures)\" errors=\"0\" skipped=\"\(accepted.count)\">\n"
        func testcase(_ f: DiffReport.Finding, _ body: String) {
            let name = XMLText.escape("\(f.severity.rawValue) links of route \(f.route) (\(f.changes.count) URLs)")
            xml += "    <testcase classname=\"\(XMLText.escape(f.route))\" name=\"\(name)\">\n      \(body)\n    </testcase>\n"
        }
        for f in findings {
            let message = XMLText.escape("\(f.old) => \(f.new)")
            let urls = XMLText.escape(f.examples().joined(separator: ", "))
            testcase(f, report.isFailure(f.changes[0])
                ? "<failure message=\"\(message)\" type=\"\(f.severity.rawValue)\">fingerprint \(f.fingerprint); \(urls)</failure>"
                : "<system-out>\(message); \(urls)</system-out>")
        }
        for f in accepted { testcase(f, "<skipped message=\"\(XMLText.escape(report.ignore[f.fingerprint]?.reason ?? ""))\"/>") }
        if findings.isEmpty && accepted.isEmpty { xml += "    <testcase classname=\"switchboard\" name=\"no outcome changes\"/>\n" }
        xml += "  </testsuite>\n</testsuites>\n"
        return xml
    }
}
