import Foundation
import MicroHTTPD
import RouteMatching
@testable import SwitchboardServer
import Testing
import TestSupport

/// `.ci/hardening` probes the server at its limits; the limits it assumes are the ones the
/// server has (a change of one without the other fails here, not in a probe that passes
/// for the wrong reason).
struct HardeningLimitsTests {
    /// `NAME = 12 << 10` and `NAME = 10_000` lines of the script.
    static func constants() throws -> [String: Int] {
        let script = try String(contentsOf: Subprocess.packageRoot.appendingPathComponent(".ci/hardening"), encoding: .utf8)
        var values: [String: Int] = [:]
        for line in script.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, parts[0].allSatisfy({ $0.isUppercase || $0 == "_" }) else { continue }
            let terms = parts[1].components(separatedBy: "<<").map { Int($0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "_", with: "")) }
            if terms.count == 1, let v = terms[0] { values[parts[0]] = v }
            if terms.count == 2, let a = terms[0], let b = terms[1] { values[parts[0]] = a << b }
        }
        return values
    }

    @Test func theScriptAssumesTheServersLimits() throws {
        let c = try Self.constants()
        let d = HTTPDaemon.Configuration()
        #expect(c["MAX_TARGET"] == d.maxTargetLength)
        #expect(c["MAX_HEADER_BYTES"] == d.maxHeaderBytes)
        #expect(c["MAX_HEADER_FIELDS"] == d.maxHeaderFields)
        #expect(c["MAX_BODY"] == d.maxBodySize)
        #expect(c["BODY_DEADLINE"] == d.bodyDeadlineSeconds)
        #expect(c["INACTIVITY_TIMEOUT"] == d.timeoutSeconds)
        #expect(c["MAX_URL"] == URLScope.maxLength)
        #expect(c["MAX_BATCH_URLS"] == RequestLimits().batchURLs)
        #expect(c["MAX_EXPLAINED_BATCH_URLS"] == RequestLimits().explainedBatchURLs)
        #expect(c["MAX_EXPENSIVE"] == RequestLimits().expensiveRequests)
    }
}
