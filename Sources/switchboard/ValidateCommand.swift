import ArgumentParser
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Switchboard
import Synchronization

struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check deep links against the manifest or a running server (for release pipelines).",
        discussion: """
            CASES holds one case a line: URL, URL -> Destination, URL -> fallback, URL -> external \
            or URL -> rejected; blank lines and # comments are skipped. A bare URL must match a route. \
            Prints each failure with its explanation, then 'N passed, N failed'. \
            Exit status: 0 all passed, 1 any failed, 2 the cases, manifest or server cannot be read.
            """
    )

    @OptionGroup var manifest: ManifestOptions

    @Option(help: ArgumentHelp("A running Switchboard to check against, e.g. http://127.0.0.1:8080.", valueName: "url"))
    var server: String?

    @OptionGroup var context: ContextOptions

    @Option(help: ArgumentHelp("Also write the results as JUnit XML to this file.", valueName: "file"))
    var junit: String?

    @Argument(help: "The cases file ('-' for standard input).")
    var cases: String

    /// URLs sent to a server in one request.
    static let batchSize = 1000

    func validate() throws {
        if manifest.configFlag != nil && server != nil { throw ValidationError("give --config or --server, not both") }
        if let server, URL(string: server)?.scheme == nil { throw ValidationError("--server '\(server)' is not a URL such as http://127.0.0.1:8080") }
    }

    func run() throws {
        let text: String
        if cases == "-" {
            var lines: [String] = []
            while let line = readLine(strippingNewline: true) { lines.append(line) }
            text = lines.joined(separator: "\n")
        } else {
            do {
                text = String(decoding: try ManifestFile.read(cases), as: UTF8.self)
            } catch {
                printError("switchboard: \(error)")
                throw ExitCode(2)
            }
        }
        let parsed: [ValidationCase]
        do {
            parsed = try ValidationCase.parse(text)
        } catch {
            printError("switchboard: \(cases): \(error)")
            throw ExitCode(2)
        }
        let results: [ResultSummary]
        if let server {
            results = try resolveRemotely(parsed.map(\.url), server: server)
        } else {
            let compiled = try manifest.load()
            results = parsed.compactMap { c in
                let json = compiled.resultJSON(compiled.resolve(c.url, context: context.context, explain: true))
                return (try? JSONParser.parse(json)).flatMap(ResultSummary.init(json:))
            }
        }
        let report = ValidationReport(source: cases, entries: zip(parsed, results).map { .init(testCase: $0, result: $1) })
        for entry in report.entries where !entry.passed {
            ValidationReport.failureText(entry).forEach { print($0) }
        }
        print(report.summary)
        if let junit {
            do {
                try Data(report.junitXML.utf8).write(to: URL(fileURLWithPath: junit))
            } catch {
                printError("switchboard: cannot write \(junit): \(error.localizedDescription)")
                throw ExitCode(2)
            }
        }
        if report.failed > 0 { throw ExitCode(1) }
    }

    /// Sends the URLs to `POST /v1/resolve` in batches and reads the results back.
    private func resolveRemotely(_ urls: [String], server: String) throws -> [ResultSummary] {
        guard let endpoint = URL(string: server.hasSuffix("/") ? server + "v1/resolve" : server + "/v1/resolve") else {
            throw ValidationError("--server '\(server)' is not a URL")
        }
        var contextMembers: [JSONValue.Member] = []
        let ctx = context.context
        if let p = ctx.platform { contextMembers.append(.init("platform", .string(p))) }
        if let i = ctx.idiom { contextMembers.append(.init("idiom", .string(i))) }
        if let v = context.appVersion { contextMembers.append(.init("appVersion", .string(v))) }
        var results: [ResultSummary] = []
        for start in stride(from: 0, to: urls.count, by: Self.batchSize) {
            let batch = urls[start..<min(urls.count, start + Self.batchSize)]
            let body = JSONValue.object([
                .init("urls", .array(batch.map { .string($0) })),
                .init("context", .object(contextMembers)),
                .init("explain", .bool(true)),
            ]).serialized()
            let (status, data) = try Self.post(endpoint, body: body)
            guard status == 200, let document = try? JSONParser.parse(data), let items = document["results"]?.arrayValue,
                  items.count == batch.count else {
                printError("switchboard: \(endpoint) answered \(status): \(String(decoding: data.prefix(300), as: UTF8.self))")
                throw ExitCode(2)
            }
            for item in items {
                guard let summary = ResultSummary(json: item) else {
                    printError("switchboard: \(endpoint) sent a result without url and status")
                    throw ExitCode(2)
                }
                results.append(summary)
            }
        }
        return results
    }

    /// A blocking POST (the command has nothing else to do while it waits).
    private static func post(_ url: URL, body: [UInt8]) throws -> (Int, [UInt8]) {
        var request = URLRequest(url: url, timeoutInterval: 30)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(body)
        let outcome = Mutex<Result<(Int, [UInt8]), any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        URLSession.shared.dataTask(with: request) { data, response, error in
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            outcome.withLock { $0 = error.map { .failure($0) } ?? .success((status, [UInt8](data ?? Data()))) }
            done.signal()
        }.resume()
        done.wait()
        switch outcome.withLock({ $0 }) {
        case .success(let value)?: return value
        case .failure(let error)?:
            printError("switchboard: cannot reach \(url): \(error.localizedDescription)")
            throw ExitCode(2)
        case nil: throw ExitCode(2)
        }
    }
}
