import Switchboard
extension ValidationReport {
    /// Every case with its outcome and explanation, totals, and coverage when measured:
    /// what `validate --format json` prints and `POST /v1/validate` answers.
    package func json(coverage: RouteCoverage? = nil) -> JSONValue {
        var members: [JSONValue.Member] = [
            .init("passed", .integer(Int64(passed))), .init("failed", .integer(Int64(failed))),
            .init("cases", .array(entries.map { entry in
                var c: [JSONValue.Member] = [
                    .init("line", .integer(Int64(entry.testCase.line))), .init("case", .string(entry.testCase.text)),
                    .init("url", .string(entry.testCase.url)), .init("expected", .string(entry.testCase.expectation.description)),
                    .init("passed", .bool(entry.passed)), .init("outcome", .string(entry.result.outcome)),
                ]
                if let context = entry.testCase.context { c.append(.init("context", context.json)) }
                if !entry.passed { c.append(.init("explanation", .array(entry.result.explanationLines.map(JSONValue.string)))) }
                return .object(c)
            })),
        ]
        if let coverage {
            members.append(.init("coverage", .object([
                .init("percent", .double(coverage.percent)),
                .init("reached", .integer(Int64(coverage.targets.count - coverage.unreached.count))),
                .init("total", .integer(Int64(coverage.targets.count))),
                .init("unreached", .array(coverage.unreached.map { .object([.init("route", .string($0.route)), .init("pattern", .string($0.pattern))]) })),
            ])))
        }
        return .object(members)
    }

    /// An error annotation on the line of each failed case, the summary last.
    package var githubAnnotations: [String] {
        entries.filter { !$0.passed }.map { entry in
            GitHubAnnotation(.error, file: source, line: entry.testCase.line, column: 1, title: "deep link \(entry.testCase.url)",
                             message: (["expected \(entry.testCase.expectation), got \(entry.result.outcome)"]
                                       + entry.result.explanationLines).joined(separator: "\n")).command
        } + [GitHubAnnotation(failed > 0 ? .error : .notice, file: nil, title: "switchboard validate", message: summary).command]
    }
}
