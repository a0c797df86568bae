import Switchboard
/// JUnit XML for CI dashboards: one test case per finding (a route and how its URLs'
/// outcome changed; failed at or above `--fail-on`, skipped when accepted), one passing
/// case when nothing changed.
package struct DiffJUnitRenderer: DiffRenderer {
    package init() {}

    package func render(_ report: DiffReport) -> String {
        let findings = report.findings, accepted = report.acceptedFindings
        // Each `--fail-on-share` threshold is a test case of its own; and a run that fails
        // on nothing listed (a traffic finding no generated URL shows, a stale ignore entry
        // under --strict-ignore) gets one, so that the failures agree with the exit code.
        let shares = report.shareVerdicts
        let exceeded = Set(report.sharesExceeded.map(\.description))
        var failures = findings.filter { report.isFailure($0.changes[0]) }.count + exceeded.count
        let otherwise = report.fails && failures == 0
        if otherwise { failures += 1 }
        let total = max(1, findings.count + accepted.count + shares.count + (otherwise ? 1 : 0))
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
        for (threshold, verdict) in zip(report.failOnShare, shares) {
            let body = exceeded.contains(threshold.description)
                ? "<failure message=\"\(XMLText.escape(verdict))\" type=\"share\">\(XMLText.escape(report.trafficHeader ?? ""))</failure>"
                : "<system-out>\(XMLText.escape(verdict))</system-out>"
            xml += "    <testcase classname=\"traffic\" name=\"\(XMLText.escape("--fail-on-share \(threshold)"))\">\n      \(body)\n    </testcase>\n"
        }
        if otherwise {
            xml += "    <testcase classname=\"switchboard\" name=\"switchboard diff\">\n      <failure message=\"\(XMLText.escape(report.summary))\" type=\"run\"/>\n    </testcase>\n"
        }
        if findings.isEmpty && accepted.isEmpty && shares.isEmpty && !otherwise { xml += "    <testcase classname=\"switchboard\" name=\"no outcome changes\"/>\n" }
        xml += "  </testsuite>\n</testsuites>\n"
        return xml
    }
}
