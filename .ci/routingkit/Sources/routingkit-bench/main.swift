// The route shapes and URL mix of Sources/switchboard-bench/main.swift, registered in a
// RoutingKit TrieRouter; prints the median ns per lookup at 100, 1,000 and 10,000 routes.
// RoutingKit has no typed params and one param name per trie position, so `/:name(/:tab)`
// is registered as `/:id/:tab` (`/:id` is there already).
import Foundation
import RoutingKit

func register(routes count: Int, in router: TrieRouter<Int>) {
    var n = 0
    var k = 0
    func add(_ path: String) { router.register(n, at: path.pathComponents) }
    while n < count {
        let s = "section\(k)"
        let shapes: [[String]] = [
            ["/\(s)"], ["/\(s)/:id"], ["/\(s)/:id/:tab"], ["/\(s)/n/:n"], ["/\(s)/orders/:uuid"],
            ["/\(s)/:id/comments/:cid"], ["/\(s)/search"], ["/\(s)/help/**"], ["/legacy-\(s)/:id"], ["/\(s)/feature/:slug"],
        ]
        for paths in shapes where n < count {
            for path in paths { add(path) }
            n += 1
        }
        k += 1
    }
}

func paths(routes count: Int) -> [[String]] {
    let sections = max(1, count / 10)
    var out: [[String]] = []
    for i in 0..<1000 {
        let s = "section\(Int.random(in: 0..<sections))"
        let path: String
        switch i % 10 {
        case 0: path = "/\(s)/andy-warhol-\(i)"
        case 1: path = "/\(s)/about/works"
        case 2: path = "/\(s)/n/\(i)"
        case 3: path = "/\(s)/n/not-a-number"
        case 4: path = "/\(s)/orders/123e4567-E89B-12d3-a456-426614174000"
        case 5: path = "/\(s)/search"
        case 6: path = "/legacy-\(s)/x\(i)"
        case 7: path = "/unknown/path/\(i)"
        case 8: path = "/\(s)/x%2Fy/bogus-tab"
        default: path = "/\(s)/help/a/b/c"
        }
        out.append(path.split(separator: "/").map(String.init))
    }
    return out
}

/// `ROUNDS=n` (default 100) and `--routes N` for profiling one table, as in switchboard-bench.
let roundCount = Int(ProcessInfo.processInfo.environment["ROUNDS"] ?? "") ?? 100
let onlySize = CommandLine.arguments.firstIndex(of: "--routes").flatMap { i in
    i + 1 < CommandLine.arguments.count ? Int(CommandLine.arguments[i + 1]) : nil
}
let clock = ContinuousClock()
print("routes   case    ns/lookup (median)")
/// `--exact`: only the case-sensitive router.
let optionSets: [Set<TrieRouter<Int>.ConfigurationOption>] =
    CommandLine.arguments.contains("--exact") ? [[]] : [[], [.caseInsensitive]]
for options in optionSets {
    for count in onlySize.map({ [$0] }) ?? [100, 1_000, 10_000] {
        let router = TrieRouter(Int.self, options: options)
        register(routes: count, in: router)
        let mix = paths(routes: count)
        var sink = 0
        var rounds: [Double] = []
        for round in 0...roundCount {
            let start = clock.now
            for path in mix {
                var parameters = Parameters()
                sink &+= router.route(path: path, parameters: &parameters) ?? -1
            }
            let d = clock.now - start
            if round > 0 {
                rounds.append((Double(d.components.seconds) * 1e9 + Double(d.components.attoseconds) / 1e9) / Double(mix.count))
            }
        }
        rounds.sort()
        print(String(format: "%6d   %@   %10.0f ns", count, options.isEmpty ? "exact" : "fold ", rounds[rounds.count / 2]))
        if sink == 42 { print("") }
    }
}
