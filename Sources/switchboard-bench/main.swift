// Resolution and load benchmark: `swift run -c release --experimental-lto-mode=full switchboard-bench [--quick]`;
// `--vectors FILE...` times resolution over conformance vectors' cases, `--write-table N FILE`
// writes the generated N-route table (both for the TypeScript client's bench);
// `--client-start`: SwitchboardClient's init and the time until a resolve right after it is answered, with a bundled table.
//
// For generated manifests of 100, 1,000 and 10,000 routes of realistic shapes it
// prints the median ns per full resolution (classify + normalize + match + params +
// result JSON bytes) over a mix of hits, typed misses and fallbacks (and the fastest
// round's, which on a busy machine is the steadier figure), the median manifest load +
// validate time, and the process's RSS after loading it. Rounds alternate between the
// tables so that all of them meet the same machine.
import Foundation
import Switchboard
import SwitchboardTooling
import ServerSystem
import SystemSupport

// The allocator settings the server runs with (loads are measured under them).
keepFreedMemoryReturned()

if let i = CommandLine.arguments.firstIndex(of: "--client-idle"), i + 3 < CommandLine.arguments.count {
    await clientIdle(url: CommandLine.arguments[i + 1], seconds: Int(CommandLine.arguments[i + 2]) ?? 30,
                     wait: Int(CommandLine.arguments[i + 3]) ?? 50,
                     bundled: i + 4 < CommandLine.arguments.count ? CommandLine.arguments[i + 4] : nil)
    exit(0)
}
if CommandLine.arguments.contains("--client-start") {
    await clientStartBench(rounds: CommandLine.arguments.contains("--quick") ? 5 : 21)
    exit(0)
}
if CommandLine.arguments.contains("--client") {
    try await clientBench(renames: CommandLine.arguments.contains("--quick") ? 10 : 50)
    exit(0)
}

let quick = CommandLine.arguments.contains("--quick")
if let i = CommandLine.arguments.firstIndex(of: "--vectors") {
    try vectorsBench(CommandLine.arguments[(i + 1)...].filter { !$0.hasPrefix("--") }, rounds: quick ? 5 : 21)
    exit(0)
}
/// `--write-table N FILE`: the generated N-route manifest measured below, for other benchmarks.
if let i = CommandLine.arguments.firstIndex(of: "--write-table"), i + 2 < CommandLine.arguments.count, let count = Int(CommandLine.arguments[i + 1]) {
    try Data(manifestJSON(routes: count)).write(to: URL(fileURLWithPath: CommandLine.arguments[i + 2]))
    exit(0)
}
/// `--routes N`: only that size (for profiling one table).
let onlySize = CommandLine.arguments.firstIndex(of: "--routes").flatMap { i in
    i + 1 < CommandLine.arguments.count ? Int(CommandLine.arguments[i + 1]) : nil
}

/// A manifest of `count` routes in sections of ten shapes, like a large app's table.
func manifestJSON(routes count: Int) -> [UInt8] {
    var routes: [String] = []
    let tabs = #"{"type": "enum", "values": ["overview", "works", "shows", "about"]}"#
    var k = 0
    while routes.count < count {
        let s = "section\(k)"
        let shapes = [
            #"{"name": "\#(s)-index", "pattern": "/\#(s)", "destination": "Index\#(k)", "presentation": {"style": "tab", "tab": "t\#(k % 5)"}}"#,
            #"{"name": "\#(s)-item", "pattern": "/\#(s)/:id", "destination": "Item\#(k)", "params": {"id": {"type": "slug"}}}"#,
            #"{"name": "\#(s)-page", "pattern": "/\#(s)/:name(/:tab)", "destination": "Page\#(k)", "params": {"tab": \#(tabs)}}"#,
            #"{"name": "\#(s)-numbered", "pattern": "/\#(s)/n/:n", "destination": "Numbered\#(k)", "params": {"n": {"type": "int"}}}"#,
            #"{"name": "\#(s)-order", "pattern": "/\#(s)/orders/:uuid", "destination": "Order\#(k)", "presentation": {"style": "modal", "modalStyle": "formSheet"}, "params": {"uuid": {"type": "uuid"}}}"#,
            #"{"name": "\#(s)-nested", "pattern": "/\#(s)/:id/comments/:cid", "destination": "Comment\#(k)", "params": {"cid": {"type": "int"}}, "since": "6.0.0"}"#,
            #"{"name": "\#(s)-search", "pattern": "/\#(s)/search", "destination": "Search\#(k)", "params": {"q": {"required": true}, "page": {"type": "int", "default": 1}}}"#,
            #"{"name": "\#(s)-web", "pattern": "/\#(s)/help/*rest", "destination": "Help\#(k)", "presentation": "web"}"#,
            #"{"name": "\#(s)-legacy", "pattern": "/legacy-\#(s)/:id", "redirect": "/\#(s)/:id"}"#,
            #"{"name": "\#(s)-variant", "pattern": "/\#(s)/feature/:slug", "destination": "Feature\#(k)", "variants": [{"when": {"idiom": "tablet"}, "presentation": "modal"}], "inject": {"source": "bench", "copy": {"param": "slug"}}}"#,
        ]
        for shape in shapes where routes.count < count { routes.append(shape) }
        k += 1
    }
    let doc = """
    {"version": 1, "updatedAt": "2026-11-20T10:00:00Z", "hosts": ["example.com", "m.example.com"], "schemes": ["example"],
     "routes": [\(routes.joined(separator: ",\n"))]}
    """
    return Array(doc.utf8)
}

/// A mix of URLs over the whole table: hits, typed misses that fall through, fallbacks.
func urlMix(routes count: Int) -> [String] {
    let sections = max(1, count / 10)
    var urls: [String] = []
    var rng = SystemRandomNumberGenerator()
    for i in 0..<1000 {
        let s = "section\(Int.random(in: 0..<sections, using: &rng))"
        switch i % 10 {
        case 0: urls.append("https://www.example.com/\(s)/andy-warhol-\(i)?ref=home#top")
        case 1: urls.append("example://\(s)/about/works")
        case 2: urls.append("/\(s)/n/\(i)")
        case 3: urls.append("/\(s)/n/not-a-number")           // typed miss: falls to /:name(/:tab)
        case 4: urls.append("/\(s)/orders/123e4567-E89B-12d3-a456-426614174000")
        case 5: urls.append("https://example.com/\(s)/search?q=warhol&page=2")
        case 6: urls.append("/legacy-\(s)/x\(i)")
        case 7: urls.append("/unknown/path/\(i)")              // fallback
        case 8: urls.append("/\(s)/x%2Fy/bogus-tab")           // typed miss to fallback
        default: urls.append("https://example.com/\(s)/help/a/b/c")
        }
    }
    return urls
}

func peakRSSKiB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }
    return -1
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
}

let clock = ContinuousClock()
func nanoseconds(_ d: Duration) -> Double {
    Double(d.components.seconds) * 1e9 + Double(d.components.attoseconds) / 1e9
}

struct Table {
    let count: Int
    let manifest: CompiledManifest
    let urls: [[UInt8]]
    let loadMilliseconds: Double
    let rssAfterLoadMiB: Double
    var rounds: [Double] = []
}

// Load every table first (median of several loads each; the previous one is freed
// outside the timing), then time resolution rounds in blocks of ten per table, the
// tables taking turns, each block after an untimed round that warms the caches for its
// table: a busy spell on this machine slows every table alike instead of whichever ran
// during it, so the 10,000/100 ratio compares like with like, and every table is
// measured warm, as a server serving it would be.
var tables: [Table] = []
/// `BENCH_LOADS=N`: loads of each table to take the median of.
let loadCount = Int(ProcessInfo.processInfo.environment["BENCH_LOADS"] ?? "") ?? (quick ? 2 : 5)
/// CPU time of the whole process (every thread), in ms.
func processCPUMilliseconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
    return Double(t.tv_sec) * 1e3 + Double(t.tv_nsec) / 1e6
}
for count in onlySize.map({ [$0] }) ?? [100, 1_000, 10_000] {
    let json = manifestJSON(routes: count)
    var loads: [Double] = [], cpu: [Double] = []
    var compiled: CompiledManifest? = nil
    for _ in 0..<loadCount {
        let (start, cpuStart) = (clock.now, processCPUMilliseconds())
        let loaded = try CompiledManifest(json: json)
        loads.append(nanoseconds(clock.now - start) / 1e6)
        cpu.append(processCPUMilliseconds() - cpuStart)
        compiled = loaded
    }
    if count == 10_000 {
        // A load works on two cores at times: its CPU time is more than its wall time.
        print(String(format: "10,000-route load: %.1f ms (median of %d), %.1f ms of CPU", median(loads), loadCount, median(cpu)))
    }
    tables.append(Table(count: count, manifest: compiled!, urls: urlMix(routes: count).map { Array($0.utf8) },
                        loadMilliseconds: median(loads), rssAfterLoadMiB: Double(peakRSSKiB()) / 1024))
}
/// One full resolution, from URL bytes to result JSON bytes, and the release of both:
/// what `callgrind --toggle-collect='*fullResolution*'` counts.
@inline(never)
func fullResolution(_ manifest: CompiledManifest, _ url: [UInt8]) -> Int {
    manifest.resultJSON(manifest.resolve(bytes: url)).count
}

var sink = 0
let roundCount = onlySize != nil ? (Int(ProcessInfo.processInfo.environment["BENCH_ROUNDS"] ?? "") ?? 1000) : quick ? 20 : 100
let blockSize = 10
for block in stride(from: 0, to: roundCount, by: blockSize) {
    for t in tables.indices {
        let (manifest, urls) = (tables[t].manifest, tables[t].urls)
        for url in urls { sink &+= fullResolution(manifest, url) }  // warm-up
        for _ in block..<min(block + blockSize, roundCount) {
            let start = clock.now
            for url in urls { sink &+= fullResolution(manifest, url) }
            tables[t].rounds.append(nanoseconds(clock.now - start) / Double(urls.count))
        }
    }
}

print("routes   load+validate   ns/resolve (median)   (fastest round)   bytes/result   RSS after load")
for table in tables {
    let bytesPerResult = table.urls.reduce(0) { $0 + fullResolution(table.manifest, $1) } / table.urls.count
    print(String(format: "%6d   %10.1f ms   %15.0f ns   %12.0f ns   %12d   %10.1f MiB", table.count, table.loadMilliseconds,
                 median(table.rounds), table.rounds.min() ?? 0, bytesPerResult, table.rssAfterLoadMiB))
}
if sink == 42 { print("") }
if let small = tables.first(where: { $0.count == 100 }), let large = tables.first(where: { $0.count == 10_000 }) {
    print(String(format: "10,000-route median / 100-route median: %.2fx (fastest rounds: %.2fx)",
                 median(large.rounds) / median(small.rounds), (large.rounds.min() ?? 0) / (small.rounds.min() ?? 1)))
}
print(String(format: "peak RSS: %.1f MiB", Double(peakRSSKiB()) / 1024))

/// 1,000 routes of `groups` optional groups each (`/g0-17/:id(/a0/:v0)(/a1/:v1)...`), so
/// 2^groups expansions per route: what the expansion cap is measured against.
func groupedManifestJSON(routes count: Int, groups: Int) -> [UInt8] {
    let routes = (0..<count).map { i in
        let optional = (0..<groups).map { "(/a\($0)/:v\($0))" }.joined()
        return #"{"name": "r\#(i)", "pattern": "/g\#(i % 100)-\#(i)/:id\#(optional)", "destination": "R\#(i)"}"#
    }
    return Array(#"{"version": 1, "routes": [\#(routes.joined(separator: ",\n"))]}"#.utf8)
}

if onlySize == nil {
    print("optional groups: routes x groups   expansions   load+validate   RSS after load")
    for groups in [4, 8] {
        let json = groupedManifestJSON(routes: 1_000, groups: groups)
        var loads: [Double] = []
        var loaded: CompiledManifest? = nil
        for _ in 0..<(quick ? 1 : 3) {
            loaded = nil
            let start = clock.now
            loaded = try CompiledManifest(json: json)
            loads.append(nanoseconds(clock.now - start) / 1e6)
        }
        let url = Array("/g7-7/x/a0/1/a3/2".utf8)
        if let loaded { sink &+= fullResolution(loaded, url) }
        print(String(format: "%20d x %d   %10d   %10.1f ms   %10.1f MiB", 1_000, groups, 1_000 << groups, median(loads),
                     Double(peakRSSKiB()) / 1024))
    }
}

/// `switchboard diff` of two 10,000-route manifests: the second renames a section's
/// routes, tightens a param type, moves a `since` and removes a route in every
/// hundredth section, as a release might.
if onlySize == nil || CommandLine.arguments.contains("--diff") {
    let count = 10_000
    let before = String(decoding: manifestJSON(routes: count), as: UTF8.self)
    var after = before
    for k in stride(from: 0, to: count / 10, by: 100) {
        after = after.replacingOccurrences(of: #""name": "section\#(k)-search""#, with: #""name": "section\#(k)-find""#)
        after = after.replacingOccurrences(of: #""pattern": "/section\#(k)/:id", "destination": "Item\#(k)", "params": {"id": {"type": "slug"}}"#,
                                           with: #""pattern": "/section\#(k)/:id", "destination": "Item\#(k)", "params": {"id": {"type": "int"}}"#)
        after = after.replacingOccurrences(of: #"{"name": "section\#(k)-numbered", "pattern": "/section\#(k)/n/:n", "destination": "Numbered\#(k)", "params": {"n": {"type": "int"}}},"#, with: "")
    }
    after = after.replacingOccurrences(of: #""since": "6.0.0""#, with: #""since": "6.2.0""#)
    let old = try CompiledManifest(json: Array(before.utf8)), new = try CompiledManifest(json: Array(after.utf8))
    var times: [Double] = []
    var diff: ManifestDiff? = nil
    for _ in 0..<(quick ? 1 : 3) {
        let start = clock.now
        diff = ManifestDiff(old: old, new: new)
        times.append(nanoseconds(clock.now - start) / 1e9)
    }
    let same = ManifestDiff(old: old, new: old)
    if let diff {
        print(String(format: "diff of two %d-route manifests: %.2f s (median), %d URLs in %d resolutions, %d outcome changes, %d declaration changes; the same table with itself: %d changes",
                     count, median(times), diff.urlCount, diff.resolutionCount, diff.outcomes.count, diff.declarations.count,
                     same.outcomes.count + same.declarations.count))
    }
}

/// What the source map costs a load: the 10,000-route manifest parsed without and with
/// it (`callgrind --toggle-collect='*plainParse*'` and `'*mappedParse*'` count each).
@inline(never) func plainParse(_ bytes: [UInt8]) -> Int { (try? JSONParser.parse(bytes))?.arrayValue?.count ?? 0 }
@inline(never) func mappedParse(_ bytes: [UInt8]) -> Int { (try? JSONParser.parseWithSourceMap(bytes))?.0.arrayValue?.count ?? 0 }
if onlySize == nil || CommandLine.arguments.contains("--parse") {
    let json = manifestJSON(routes: 10_000)
    var plain: [Double] = [], mapped: [Double] = []
    for _ in 0..<(quick ? 3 : 9) {
        var start = clock.now
        sink &+= plainParse(json)
        plain.append(nanoseconds(clock.now - start) / 1e6)
        start = clock.now
        sink &+= mappedParse(json)
        mapped.append(nanoseconds(clock.now - start) / 1e6)
    }
    print(String(format: "parse of the 10,000-route manifest: %.1f ms without positions, %.1f ms with (medians)", median(plain), median(mapped)))
    // The same table on one line, as a generator or `jq -c` writes it, with a warning on
    // every route: positions must not cost more there than one route per line (columns
    // on a 1 MB line once took 30 s for 40,000 routes).
    let warned = String(decoding: json, as: UTF8.self).replacing(#"", "destination": "Index"#, with: #"/", "destination": "Index"#)
    var lined: [Double] = [], oneLine: [Double] = []
    for _ in 0..<(quick ? 1 : 3) {
        for (bytes, into) in [(Array(warned.utf8), 0), (Array(warned.replacing(",\n", with: ",").utf8), 1)] {
            let start = clock.now
            let loaded = try CompiledManifest(json: bytes)
            sink &+= loaded.warnings.count
            if into == 0 { lined.append(nanoseconds(clock.now - start) / 1e6) } else { oneLine.append(nanoseconds(clock.now - start) / 1e6) }
        }
    }
    print(String(format: "load of the 10,000-route manifest with 1,000 warnings: %.1f ms a route per line, %.1f ms on one line (medians)",
                 median(lined), median(oneLine)))
}

/// What `explain=near` costs over `explain=1` on the 10,000-route table: the near-miss
/// search looks at every expansion (`callgrind --toggle-collect='*nearResolution*'`).
@inline(never) func nearResolution(_ manifest: CompiledManifest, _ url: [UInt8]) -> Int {
    manifest.resolveExplainingNearMisses(bytes: url).explanation?.near?.count ?? 0
}
@inline(never) func explainedResolution(_ manifest: CompiledManifest, _ url: [UInt8]) -> Int {
    manifest.resolve(bytes: url, explain: true).explanation?.steps.count ?? 0
}
if onlySize == nil || CommandLine.arguments.contains("--near") {
    let manifest = try CompiledManifest(json: manifestJSON(routes: 10_000))
    let urls = urlMix(routes: 10_000).prefix(quick ? 20 : 100).map { Array($0.utf8) }
    var explained: [Double] = [], near: [Double] = []
    for url in urls {
        var start = clock.now
        sink &+= explainedResolution(manifest, url)
        explained.append(nanoseconds(clock.now - start) / 1e3)
        start = clock.now
        sink &+= nearResolution(manifest, url)
        near.append(nanoseconds(clock.now - start) / 1e3)
    }
    print(String(format: "resolve on the 10,000-route table: %.0f µs with explain=1, %.0f µs with explain=near (medians over %d URLs)",
                 median(explained), median(near), urls.count))
}
