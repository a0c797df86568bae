import Switchboard
/// Everything in the report as one JSON document, for tools.
package struct DiffJSONRenderer: DiffRenderer {
    package init() {}

    package func render(_ report: DiffReport) -> String {
        func position(_ p: SourcePosition?) -> [JSONValue.Member] {
            p.map { [.init("line", .integer(Int64($0.line))), .init("column", .integer(Int64($0.column)))] } ?? []
        }
        func outcome(_ c: OutcomeChange, reason: String? = nil) -> JSONValue {
            let (file, place) = report.location(of: c)
            var members: [JSONValue.Member] = [
                .init("severity", .string(c.severity.rawValue)), .init("url", .string(c.url)), .init("shape", .string(c.shape)),
                .init("context", c.context.map(JSONValue.string) ?? .null),
                .init("contexts", .array(c.contexts.map(\.json))),
                .init("old", c.old.json), .init("new", c.new.json), .init("fingerprint", .string(c.fingerprint)),
                .init("file", .string(file)),
            ] + position(place)
            if let reason { members.append(.init("reason", .string(reason))) }
            return .object(members)
        }
        let declarations = report.diff.declarations.map { d -> JSONValue in
            let (file, place) = report.location(of: d)
            return .object([
                .init("kind", .string(d.kind.rawValue)), .init("route", d.route.map(JSONValue.string) ?? .null),
                .init("newName", d.newName.map(JSONValue.string) ?? .null), .init("field", d.field.map(JSONValue.string) ?? .null),
                .init("old", d.old ?? .null), .init("new", d.new ?? .null), .init("breaking", .bool(d.isBreaking)),
                .init("file", .string(file)),
            ] + position(place))
        }
        var traffic: [JSONValue.Member] = []
        if let t = report.traffic {
            func count(_ n: Int) -> JSONValue { .integer(Int64(n)) }
            let findings = report.trafficFindings
            traffic = [.init("traffic", .object([
                .init("total", count(t.total)), .init("lines", count(t.lines)), .init("badLines", count(t.badLines)),
                .init("compared", count(t.compared)), .init("estimated", .bool(t.estimated)),
                .init("severities", .object(ChangeSeverity.allCases.reversed().map { severity in
                    let of = findings.filter { $0.severity == severity }
                    return .init(severity.rawValue, .object([
                        .init("hits", count(of.reduce(0) { $0 + $1.hits })), .init("urls", count(of.reduce(0) { $0 + $1.urls })),
                        .init("share", .double(t.total == 0 ? 0 : Double(of.reduce(0) { $0 + $1.hits }) / Double(t.total))),
                    ]))
                })),
                .init("failOnShare", .array(report.failOnShare.map { s in
                    .object([.init("threshold", .string(s.description)), .init("share", .double(report.trafficShare(atOrAbove: s.severity))),
                             .init("fails", .bool(report.sharesExceeded.contains(s)))])
                })),
                .init("problem", t.problem.map(JSONValue.string) ?? .null),
                .init("breakdown", .object(report.trafficBreakdown.map { dimension, rows in
                    .init(dimension == "app version" ? "appVersion" : dimension, .array(rows.map { r in
                        .object([.init("value", .string(r.value)), .init("requests", count(r.requests)),
                                 .init("breaking", count(r.breaking)), .init("changed", count(r.changed))])
                    }))
                })),
                .init("findings", .array(findings.map { f in
                    .object([
                        .init("severity", .string(f.severity.rawValue)), .init("route", .string(f.route)),
                        .init("pattern", .string(f.pattern)), .init("fingerprint", .string(f.fingerprint)),
                        .init("hits", count(f.hits)), .init("urls", count(f.urls)),
                        .init("old", f.examples[0].old.json), .init("new", f.examples[0].new.json),
                        .init("examples", .array(f.examples.map { .string($0.url) })),
                        .init("contexts", .array(f.examples.map { $0.context.map(JSONValue.string) ?? .null })),
                    ])
                })),
            ]))]
        }
        let document = JSONValue.object(traffic + [
            .init("summary", .object([
                // Findings (a route and a change each) by severity; `outcomes` lists every URL.
                .init("breaking", .integer(Int64(report.count(.breaking)))),
                .init("changed", .integer(Int64(report.count(.changed)))),
                .init("added", .integer(Int64(report.count(.added)))),
                .init("ignored", .integer(Int64(report.ignored.count))),
                .init("declarations", .integer(Int64(report.diff.declarations.count))),
                .init("urls", .integer(Int64(report.diff.urlCount))),
                .init("resolutions", .integer(Int64(report.diff.resolutionCount))),
                .init("fails", .bool(report.fails)),
            ])),
            .init("declarations", .array(declarations)),
            .init("findings", .array(report.findings.map { f in
                .object([
                    .init("severity", .string(f.severity.rawValue)), .init("route", .string(f.route)),
                    .init("fingerprint", .string(f.fingerprint)), .init("urls", .integer(Int64(f.changes.count))),
                    .init("old", f.old.json), .init("new", f.new.json),
                    .init("examples", .array(f.changes.prefix(3).map { .string($0.url) })),
                ])
            })),
            .init("outcomes", .array(report.outcomes.map { outcome($0) })),
            .init("ignored", .array(report.ignored.map { outcome($0.change, reason: $0.reason) })),
            .init("staleIgnores", .array(report.staleIgnores.map {
                .object([.init("fingerprint", .string($0.fingerprint)), .init("reason", .string($0.entry.reason)),
                         .init("line", .integer(Int64($0.entry.line)))])
            })),
        ])
        return String(decoding: document.serialized(), as: UTF8.self) + "\n"
    }
}
