/// JUnit XML for CI dashboards: one test case per outcome change (failed at or above
/// `--fail-on`, skipped when accepted), one passing case when nothing changed.
public struct DiffJUnitRenderer: DiffRenderer {
    public init() {}

    public func render(_ report: DiffReport) -> String {
        let outcomes = report.outcomes, ignored = report.ignored
        let failures = outcomes.filter(report.isFailure).count
        let total = max(1, outcomes.count + ignored.count)
        let suite = XMLText.escape("switchboard diff \(report.oldFile) \(report.newFile)")
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites tests=\"\(total)\" failures=\"\(failures)\">\n"
        xml += "  <testsuite name=\"\(suite)\" tests=\"\(total)\" failures=\"\(failures)\" errors=\"0\" skipped=\"\(ignored.count)\">\n"
        func testcase(_ c: OutcomeChange, _ body: String?) {
            let name = XMLText.escape("\(c.severity.rawValue) \(c.url)" + (c.context.map { " [\($0)]" } ?? ""))
            xml += "    <testcase classname=\"\(XMLText.escape(c.shape))\" name=\"\(name)\""
            xml += body.map { ">\n      \($0)\n    </testcase>\n" } ?? "/>\n"
        }
        for c in outcomes {
            let message = XMLText.escape("\(c.old) => \(c.new)")
            testcase(c, report.isFailure(c) ? "<failure message=\"\(message)\" type=\"\(c.severity.rawValue)\">fingerprint \(c.fingerprint)</failure>"
                                            : "<system-out>\(message)</system-out>")
        }
        for (c, reason) in ignored { testcase(c, "<skipped message=\"\(XMLText.escape(reason))\"/>") }
        if outcomes.isEmpty && ignored.isEmpty { xml += "    <testcase classname=\"switchboard\" name=\"no outcome changes\"/>\n" }
        xml += "  </testsuite>\n</testsuites>\n"
        return xml
    }
}
