import Foundation
import Switchboard

/// `--vectors FILE...`: for each conformance vectors document, the manifest's load time
/// and the median ns per full resolution (resolve and result JSON) over its cases' URLs
/// and contexts: the figure a client in another language is held against, on the same
/// table and URLs (`node clients/typescript/dist/bench.js` runs it first).
func vectorsBench(_ files: [String], rounds: Int) throws {
    let clock = ContinuousClock()
    func nanoseconds(_ d: Duration) -> Double { Double(d.components.seconds) * 1e9 + Double(d.components.attoseconds) / 1e9 }
    for file in files {
        let document = try JSONParser.parse(Array(try Data(contentsOf: URL(fileURLWithPath: file))))
        guard let manifest = document["manifest"], let cases = document["cases"]?.arrayValue else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: file])
        }
        let bytes = manifest.serialized(sortedKeys: true)
        var loads: [Double] = []
        var compiled: CompiledManifest? = nil
        for _ in 0..<5 {
            let start = clock.now
            compiled = try CompiledManifest(json: bytes)
            loads.append(nanoseconds(clock.now - start) / 1e6)
        }
        guard let compiled else { continue }
        let inputs: [([UInt8], ResolveContext)] = cases.compactMap { item in
            guard let url = item["url"]?.stringValue else { return nil }
            var context = ResolveContext()
            for member in item["context"]?.objectMembers ?? [] {
                if let text = member.value.stringValue { try? context.set(named: member.key, text) }
            }
            return (Array(url.utf8), context)
        }
        var sink = 0
        for (url, context) in inputs { sink &+= compiled.resultJSON(compiled.resolve(bytes: url, context: context)).count }
        var perResolve: [Double] = []
        for _ in 0..<rounds {
            let start = clock.now
            for (url, context) in inputs { sink &+= compiled.resultJSON(compiled.resolve(bytes: url, context: context)).count }
            perResolve.append(nanoseconds(clock.now - start) / Double(max(inputs.count, 1)))
        }
        let sorted = loads.sorted(), rounds = perResolve.sorted()
        print(String(format: "%@: %d routes, %d cases: %.0f ns/resolve (median of %d rounds), load+validate %.1f ms (median of 5)%@",
                     file, compiled.manifest.routes.count, inputs.count, rounds[rounds.count / 2], rounds.count, sorted[2], sink == 42 ? " " : ""))
    }
}
