import Switchboard
/// `--fail-on-share breaking=0.1%`: the run fails when more than that share of the
/// requests read changes at that severity or above (`changed=` counts breaking changes
/// too, `added=` every change).
package struct ShareThreshold: Sendable, Equatable, CustomStringConvertible {
    package let severity: ChangeSeverity
    /// A fraction of 1 (`0.001` for `0.1%`).
    package let fraction: Double
    package let description: String

    /// Reads `breaking=0.1%` (`changed=2%`, `added=0.5%`; `any` is `added`).
    package init?(_ text: String) {
        let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { return nil }
        let name = parts[0] == "any" ? "added" : parts[0]
        guard let severity = ChangeSeverity(rawValue: name) else { return nil }
        var number = parts[1]
        guard number.hasSuffix("%") else { return nil }
        number.removeLast()
        guard let percent = Double(number), percent >= 0, percent <= 100, percent.isFinite else { return nil }
        self.severity = severity
        self.fraction = percent / 100
        self.description = "\(parts[0])=\(parts[1])"
    }
}

extension DiffReport {
    /// The traffic findings not accepted by the ignore file.
    package var trafficFindings: [TrafficImpact.Finding] {
        (traffic?.findings ?? []).filter { ignore[$0.fingerprint] == nil }
    }

    /// The share of requests changed at `severity` or above, accepted changes left out.
    package func trafficShare(atOrAbove severity: ChangeSeverity) -> Double {
        traffic?.share(atOrAbove: severity, ignoring: Set(ignore.keys)) ?? 0
    }

    /// The `--fail-on-share` thresholds that trip: all of them when the traffic read cannot
    /// stand for traffic (nothing read, too many bad lines): a gate fails closed.
    package var sharesExceeded: [ShareThreshold] {
        guard let traffic else { return [] }
        if traffic.problem != nil { return failOnShare }
        return failOnShare.filter { trafficShare(atOrAbove: $0.severity) > $0.fraction }
    }

    /// Whether a traffic finding fails `--fail-on`.
    var trafficFails: Bool {
        trafficFindings.contains { failOn.fails($0.severity) }
    }

    /// `breaking: 1.8% of 2,345,000 requests, 412 distinct URLs; top: artist /artist/:id/auction (31,200)`,
    /// one line per severity, most severe first.
    package var trafficLines: [String] {
        guard let traffic else { return [] }
        return ChangeSeverity.allCases.reversed().map { severity in
            let findings = trafficFindings.filter { $0.severity == severity }
            let hits = findings.reduce(0) { $0 + $1.hits }, urls = findings.reduce(0) { $0 + $1.urls }
            guard let top = findings.first else { return "\(severity.rawValue): none of \(TrafficReport.grouped(traffic.total)) requests" }
            return "\(severity.rawValue): \(TrafficReport.percent(hits, of: traffic.total)) of \(TrafficReport.grouped(traffic.total)) requests, "
                + "\(TrafficReport.grouped(urls)) distinct URL\(urls == 1 ? "" : "s"); top: \(top.route) \(top.pattern) (\(TrafficReport.grouped(top.hits)))"
        }
    }

    /// Where the changed and breaking requests land, by platform and by app version, when
    /// the traffic says (more than one value, or one other than none): `by platform: ios
    /// 2.1% breaking (412 of 19,600), 3.4% changed; android 0% breaking, ...`. Accepted
    /// changes left out.
    package var trafficBreakdown: [(dimension: String, rows: [(value: String, requests: Int, breaking: Int, changed: Int)])] {
        guard let traffic else { return [] }
        let findings = trafficFindings
        func rows(_ all: [String: Int], _ of: (TrafficImpact.Finding) -> [String: Int]) -> [(value: String, requests: Int, breaking: Int, changed: Int)] {
            all.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { value, requests in
                let breaking = findings.filter { $0.severity == .breaking }.reduce(0) { $0 + (of($1)[value] ?? 0) }
                let changed = findings.filter { $0.severity >= .changed }.reduce(0) { $0 + (of($1)[value] ?? 0) }
                return (value, requests, breaking, changed)
            }
        }
        var out: [(dimension: String, rows: [(value: String, requests: Int, breaking: Int, changed: Int)])] = []
        for (dimension, all, of) in [("platform", traffic.requestsByPlatform, { (f: TrafficImpact.Finding) in f.byPlatform }),
                                     ("app version", traffic.requestsByAppVersion, { (f: TrafficImpact.Finding) in f.byAppVersion })]
        where all.count > 1 || (all.count == 1 && all.keys.first != TrafficImpact.none) {
            out.append((dimension, rows(all, of)))
        }
        return out
    }

    /// The breakdown as lines: `by platform: ios: 412 of 19,600 requests break (2.1%), 650 change (3.3%); ...`.
    package var trafficBreakdownLines: [String] {
        trafficBreakdown.map { dimension, rows in
            "by \(dimension): " + rows.prefix(10).map { r in
                "\(r.value): \(TrafficReport.grouped(r.breaking)) of \(TrafficReport.grouped(r.requests)) break (\(TrafficReport.percent(r.breaking, of: r.requests))), "
                    + "\(TrafficReport.grouped(r.changed)) change (\(TrafficReport.percent(r.changed, of: r.requests)))"
            }.joined(separator: "; ") + (rows.count > 10 ? "; ... \(rows.count - 10) more" : "")
        }
    }

    /// `traffic: 918,295 requests from 1,000,000 lines (2 bad); 88,589 URLs compared`
    package var trafficHeader: String? {
        guard let traffic else { return nil }
        return "traffic: \(TrafficReport.grouped(traffic.total)) requests from \(TrafficReport.grouped(traffic.lines)) lines "
            + "(\(TrafficReport.grouped(traffic.badLines)) bad" + (traffic.notLinks > 0 ? ", \(TrafficReport.grouped(traffic.notLinks)) not links: bots, static files, scanners" : "")
            + "); \(TrafficReport.grouped(traffic.compared)) URLs compared"
    }

    /// One traffic finding as a line: `breaking artwork: ... => ...  [fp]  27,987 requests (3.05%), 1,200 URLs, e.g. ...`.
    package func describe(_ f: TrafficImpact.Finding) -> String {
        let total = traffic?.total ?? 0
        return "\(f.severity.rawValue) \(f.route): \(f.examples[0].old) => \(f.examples[0].new)  [\(f.fingerprint)]  "
            + "\(TrafficReport.grouped(f.hits)) request\(f.hits == 1 ? "" : "s") (\(TrafficReport.percent(f.hits, of: total))), "
            + "\(TrafficReport.grouped(f.urls)) URL\(f.urls == 1 ? "" : "s"), e.g. " + f.exampleURLs.joined(separator: ", ")
    }

    /// What `--fail-on-share` found, one line per threshold.
    package var shareVerdicts: [String] {
        guard let traffic else { return [] }
        let exceeded = sharesExceeded
        return failOnShare.map { t in
            if let problem = traffic.problem { return "--fail-on-share \(t): fails, \(problem)" }
            let share = TrafficReport.percent(traffic.hits(atOrAbove: t.severity, ignoring: Set(ignore.keys)), of: traffic.total)
            return "--fail-on-share \(t): \(share) of requests \(t.severity == .breaking ? "break" : "change") (\(exceeded.contains(t) ? "fails" : "passes"))"
        }
    }
}
