import Foundation
@testable import Switchboard
@testable import SwitchboardTooling
import Testing
import TestSupport

/// `switchboard traffic` and `diff --traffic` over generated access logs of the bundled
/// table, each held to a count made independently: the generator knows how often it wrote
/// each URL, and `switchboard resolve` says where each goes.
@Suite(.serialized)
struct TrafficCommandTests {
    /// A deterministic generator (SplitMix64).
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    }

    /// An access log of `lines` lines: links of the bundled table's routes, links that go
    /// nowhere (`/nope/N`, `/viewing-room/S/works`), external and rejected ones, requests to
    /// Switchboard's `/v1/resolve` in a context, and lines that are no link (polls, POSTs).
    /// Returns the log and how many times each URL (in its context, as `url [platform]`)
    /// was written.
    static func accessLog(lines: Int, seed: UInt64 = 7) -> (text: String, counts: [String: Int], noLink: Int) {
        var random = Random(state: seed)
        let templates: [(String, Int)] = [
            ("/artwork/work-%d", 400), ("/artist/banksy", 200), ("/artist/banksy/works", 150), ("/works/old-%d", 60),
            ("/nope/%d", 80), ("/viewing-room/room-%d/works", 50), ("/", 120), ("mailto:info@artsy.net", 10),
            ("/a%ZZ", 5), ("/user/conversations/%d", 40), ("https://www.artsy.net/artist/kaws?ref=home", 30),
        ]
        let weight = templates.reduce(0) { $0 + $1.1 }
        var counts: [String: Int] = [:]
        var noLink = 0
        var out = ""
        out.reserveCapacity(lines * 100)
        for i in 0..<lines {
            var pick = random.below(weight)
            var template = templates[0].0
            for (t, w) in templates {
                if pick < w { template = t; break }
                pick -= w
            }
            let url = template.replacingOccurrences(of: "%d", with: String(random.below(5_000)))
            switch random.below(10) {
            case 0:
                out += "10.0.0.9 - - [27/Nov/2026:10:00:00 +0000] \"GET /v1/manifest HTTP/1.1\" 304 0 \"-\" \"client\"\n"
                noLink += 1
            case 1:
                out += "10.0.0.9 - - [27/Nov/2026:10:00:00 +0000] \"POST \(url) HTTP/1.1\" 200 10\n"
                noLink += 1
            case 2, 3:
                let encoded = url.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                out += "10.0.0.2 - - [27/Nov/2026:10:00:\(i % 60) +0000] \"GET /v1/resolve?url=\(encoded)&platform=web HTTP/1.1\" 200 300 \"-\" \"app\"\n"
                counts[url + " [web]", default: 0] += 1
            default:
                let target = url.hasPrefix("/") ? url : url  // absolute-form targets are links too
                out += "192.168.1.\(i % 250) - - [27/Nov/2026:10:00:00 +0000] \"GET \(target) HTTP/1.1\" 200 512 \"https://example.com/\" \"Mozilla/5.0\"\n"
                counts[url + " []", default: 0] += 1
            }
        }
        return (out, counts, noLink)
    }

    /// What the independent count expects: each distinct URL resolved by `switchboard
    /// resolve` in its context, weighed by how often it was written.
    static func expected(_ counts: [String: Int]) throws -> (outcomes: [String: Int], routes: [String: Int]) {
        var outcomes: [String: Int] = [:], routes: [String: Int] = [:]
        for platform in ["", "web"] {
            let keys = counts.keys.filter { $0.hasSuffix(" [\(platform)]") }.sorted()
            let urls = keys.map { String($0.dropLast(platform.count + 3)) }
            let out = try CLI.run(["resolve", "--config", "Config/routes.json", "--explain"] + (platform.isEmpty ? [] : ["--platform", platform]) + ["-"],
                                  stdin: urls.joined(separator: "\n") + "\n")
            let results = out.stdout.split(separator: "\n")
            #expect(results.count == urls.count)
            for (key, line) in zip(keys, results) {
                let result = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                let n = counts[key]!
                outcomes[result["status"] as! String, default: 0] += n
                if let route = (result["route"] as? [String: Any])?["name"] as? String { routes[route, default: 0] += n }
                let steps = ((result["explain"] as? [String: Any])?["tried"] as? [[String: Any]]) ?? []
                for step in steps where step["outcome"] as? String == "redirected" { routes[step["route"] as! String, default: 0] += n }
            }
        }
        return (outcomes, routes)
    }

    static func json(_ output: CLI.Output) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any], "\(output.stdout)\(output.stderr)")
    }

    @Test func countsEqualAnIndependentCount() throws {
        let log = Self.accessLog(lines: 100_000)
        let file = try CLI.temporaryFile(log.text, name: "access.log")
        let out = try CLI.run(["traffic", file, "--config", "Config/routes.json", "--format", "json"])
        #expect(out.status == 0, "\(out.stderr)")
        let report = try Self.json(out)
        let (outcomes, routes) = try Self.expected(log.counts)
        #expect(report["total"] as? Int == log.counts.values.reduce(0, +))
        #expect(report["lines"] as? Int == 100_000)
        #expect(report["badLines"] as? Int == 0)
        #expect(report["skippedLines"] as? Int == log.noLink)
        // The clients: the remote addresses of the log's links (not of its polls and
        // POSTs), counted distinct (exactly, so few).
        let remotes = Set(log.text.split(separator: "\n").filter { !$0.contains("\"POST ") && !$0.contains("/v1/manifest") }
            .map { $0.prefix { $0 != " " } })
        #expect(report["clients"] as? Int == remotes.count)
        #expect(report["clientsEstimated"] as? Bool == false)
        // Past 4,096 they are estimated, within a few percent, in bounded memory.
        var many = DistinctCount()
        for i in 0..<100_000 { many.add("198.51.\(i / 256).\(i % 256)") }
        #expect(!many.isExact && abs(many.estimate - 100_000) < 5_000, "\(many.estimate)")
        let reported = try #require(report["outcomes"] as? [String: Int])
        for status in ["matched", "fallback", "external", "rejected"] {
            #expect(reported[status] == (outcomes[status] ?? 0), "\(status)")
        }
        let routeHits = try #require(report["routes"] as? [[String: Any]])
        let bundled = try CompiledManifest(json: Array(Manifests.bundled.utf8))
        #expect(routeHits.map { $0["route"] as? String } == bundled.manifest.routes.map(\.name), "every route, in manifest order")
        for entry in routeHits {
            let name = entry["route"] as! String
            #expect(entry["hits"] as? Int == (routes[name] ?? 0), "\(name)")
        }
        let unused = try #require(report["unused"] as? [String])
        #expect(Set(unused) == Set(bundled.manifest.routes.map(\.name).filter { (routes[$0] ?? 0) == 0 }))
        // Links that go nowhere, by shape: each template that falls back is one shape.
        let nowhere = try #require(report["nowhere"] as? [[String: Any]])
        let nope = log.counts.filter { $0.key.hasPrefix("/nope/") }.values.reduce(0, +)
        #expect(nowhere.first { $0["shape"] as? String == "/nope/:int" }?["hits"] as? Int == nope, "\(nowhere)")
        let rejected = log.counts.filter { $0.key.hasPrefix("/a%ZZ") }.values.reduce(0, +)
        let bad = try #require(nowhere.first { $0["status"] as? String == "rejected" })
        #expect(bad["hits"] as? Int == rejected && bad["reason"] as? String == "invalid percent-encoding")
        #expect(report["estimated"] as? Bool == false)
    }

    /// The tallies stay exact when the table of distinct URLs is far smaller than their
    /// number: a URL pushed out is resolved again, never miscounted.
    @Test func talliesStayExactPastTheTableOfURLs() throws {
        let log = Self.accessLog(lines: 20_000, seed: 11)
        let compiled = try CompiledManifest(json: Array(Manifests.bundled.utf8))
        func run(_ capacity: Int, shapes: Int = 10_000) -> TrafficReport {
            let analysis = TrafficAnalysis(manifest: compiled, cacheCapacity: capacity, shapeCapacity: shapes)
            var reader = TrafficReader()
            reader.begin(file: "log")
            reader.feed(Array(log.text.utf8)[...]) { analysis.add($0) }
            reader.finish { analysis.add($0) }
            return analysis.report(reader)
        }
        let exact = run(1_000_000), small = run(64)
        #expect(small.resolved > exact.resolved)
        #expect(small.outcomes.map(\.hits) == exact.outcomes.map(\.hits))
        #expect(small.routes.map(\.hits) == exact.routes.map(\.hits))
        // Past the shapes' bound the counts are estimates, and the report says so; the
        // heaviest shape is still found, its count at most overstated.
        let sketched = run(1_000_000, shapes: 1)
        #expect(sketched.estimated && !exact.estimated)
        #expect(sketched.nowhere.first?.hits ?? 0 >= exact.nowhere.first?.hits ?? 0)
    }

    /// The tables are bounded in bytes, not entries: 3,000 distinct URLs of 10 KiB under
    /// `--memory 8` are counted exactly (outcomes and routes) in about that much.
    @Test func theTablesAreBoundedInBytes() async throws {
        let urls = (0..<3000).map { "/artist/a\($0)" + String(repeating: "b", count: 10_000) }
        let file = try CLI.temporaryFile(urls.joined(separator: "\n") + "\n", name: "long-urls.txt")
        let out = try await Subprocess.offThePool { try CLI.run(["traffic", file, "--config", "Config/routes.json", "--format", "json", "--memory", "8"]) }
        #expect(out.status == 0, "\(out.stderr)")
        let report = try Self.json(out)
        #expect(report["total"] as? Int == 3000)
        #expect(report["badLines"] as? Int == 0)
        let outcomes = try #require(report["outcomes"] as? [String: Int])
        #expect(outcomes.values.reduce(0, +) == 3000)
        var table = SpaceSaving<String, Int>(capacity: 100_000, byteBudget: 100_000) { key, _ in key.utf8.count }
        for url in urls { table.add(url) { 0 } }
        #expect(table.count <= 10 && table.bytes <= 100_000 + 10_100, "\(table.count) entries, \(table.bytes) bytes")
        #expect(table.evicted)
    }

    /// `--max-seconds`: a log too slow to read in time (here 64 MiB of distinct 16 KiB
    /// lines, the worst kind) stops at the next MiB past the bound, reports the lines read
    /// and exits 2; one read in time exits 0.
    @Test func maxSecondsBoundsTheRunAndSaysItStoppedEarly() async throws {
        let lines = 4_096
        var text = ""
        text.reserveCapacity(lines * 16_400)
        for i in 0..<lines { text += "/artist/a\(i)x" + String(repeating: "b", count: 16_000) + "\n" }
        let file = try CLI.temporaryFile(text, name: "slow.txt")
        let started = Date()
        let out = try await Subprocess.offThePool {
            try CLI.run(["traffic", file, "--config", "Config/routes.json", "--format", "json", "--max-seconds", "1"])
        }
        #expect(out.status == 2, "\(out.stderr)")
        #expect(out.stderr.contains("stopped after --max-seconds 1 at line ") && out.stderr.contains("slow.txt"), "\(out.stderr)")
        let report = try Self.json(out)
        let read = try #require(report["lines"] as? Int)
        #expect(read > 0 && read < lines, "\(read) lines read")
        #expect(Date().timeIntervalSince(started) < 30)
        let quick = try CLI.temporaryFile(Self.accessLog(lines: 100, seed: 9).text, name: "quick.log")
        let done = try CLI.run(["traffic", quick, "--config", "Config/routes.json", "--max-seconds", "60"])
        #expect(done.status == 0, "\(done.stderr)")
        #expect(try CLI.run(["traffic", quick, "--max-seconds", "0"]).status != 0)
    }

    @Test func badLinesAreCountedAndNeverStopTheRun() throws {
        var text = Self.accessLog(lines: 200, seed: 3).text
        let good = text.split(separator: "\n").count
        text += "garbage that is no log line\n"
        text += "127.0.0.1 - - [27/Nov/2026:10:00:00 +0000] \"GET /artist/ba"  // cut short, then binary
        var bytes = Array(text.utf8) + [0x0A, 0x00, 0xFF, 0xFE, 0x1B, 0x0A]
        bytes += Array("127.0.0.1 - - [27/Nov/2026:10:00:00 +0000] \"GET /artist/banksy HTTP/1.1\" 200 1\n".utf8)
        bytes += Array(repeating: UInt8(ascii: "x"), count: 70_000) + [0x0A]
        // Past the longest target the server accepts (12 KiB), within one chunk: bad too.
        bytes += Array("/artist/".utf8) + Array(repeating: UInt8(ascii: "y"), count: 12_300) + [0x0A]
        let dir = CLI.temporaryRoot.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let file = dir.appendingPathComponent("mixed.log")
        try Data(bytes).write(to: file)
        // 5 bad lines of 206 are more than the 1% a gate lets through by default: the
        // report is written, and the run fails naming the share.
        let strict = try CLI.run(["traffic", file.path, "--config", "Config/routes.json", "--format", "json"])
        #expect(strict.status == 2)
        #expect(strict.stderr.contains("5 of \(good + 6) lines") && strict.stderr.contains("more than --max-bad-lines 1%"), "\(strict.stderr)")
        let out = try CLI.run(["traffic", file.path, "--config", "Config/routes.json", "--format", "json", "--max-bad-lines", "5%"])
        #expect(out.status == 0, "\(out.stderr)")
        let report = try Self.json(out)
        #expect(report["lines"] as? Int == good + 6)
        #expect(report["badLines"] as? Int == 5, "\(report["bad"] ?? "")")
        let bad = try #require(report["bad"] as? [[String: Any]])
        #expect(bad.map { $0["line"] as? Int } == [good + 1, good + 2, good + 3, good + 5, good + 6])
        // The line after the binary one is read.
        #expect((report["routes"] as? [[String: Any]])?.first { $0["route"] as? String == "artist" }?["hits"] as? Int ?? 0 > 0)
        // A file whose first line is cut short is still read as the log it is.
        let headless = try CLI.temporaryFile("GET /artw\u{1}\n" + Self.accessLog(lines: 50, seed: 4).text, name: "rotated.log")
        let h = try Self.json(try CLI.run(["traffic", headless, "--config", "Config/routes.json", "--format", "json", "--max-bad-lines", "5%"]))
        #expect(h["badLines"] as? Int == 1)
        #expect((h["formats"] as? [[String: Any]])?.first?["format"] as? String == "access-log")
        // As text too, naming the lines.
        let text2 = try CLI.run(["traffic", file.path, "--config", "Config/routes.json", "--max-bad-lines", "5%"])
        #expect(text2.stdout.contains("bad line \(file.path):\(good + 1)"), "\(text2.stdout)")
    }

    @Test func gzipStandardInputAndJSONLinesAreRead() throws {
        let gzip = try Subprocess.tool("gzip", package: "gzip")
        let log = Self.accessLog(lines: 5_000, seed: 5)
        let plain = try CLI.temporaryFile(log.text, name: "access.log")
        _ = try Subprocess.run(gzip, ["-k", plain])
        let a = try Self.json(try CLI.run(["traffic", plain, "--format", "json", "--config", "Config/routes.json"]))
        let b = try Self.json(try CLI.run(["traffic", plain + ".gz", "--format", "json", "--config", "Config/routes.json"]))
        #expect(a["outcomes"] as? [String: Int] == b["outcomes"] as? [String: Int])
        #expect(a["total"] as? Int == b["total"] as? Int)
        // A gzip file cut short is not the traffic it claims to be: named, and the run fails.
        let whole = try Data(contentsOf: URL(fileURLWithPath: plain + ".gz"))
        let cut = plain + ".cut.gz"
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: cut))
        let c = try CLI.run(["traffic", cut, "--format", "json", "--config", "Config/routes.json"])
        #expect(c.status == 2)
        #expect(c.stderr.contains("\(cut): the gzip stream is cut short after"), "\(c.stderr)")
        let gate = try CLI.run(["diff", "Config/routes.json", "Config/routes.json", "--traffic", cut, "--fail-on-share", "breaking=0.1%"])
        #expect(gate.status == 2 && gate.stderr.contains("cut short"), "\(gate.stderr)")
        // JSON lines in a context, with pre-counted hits, from standard input.
        let lines = """
            {"url": "/user/conversations/12", "appVersion": "7.1.0", "hits": 5}
            {"url": "/user/conversations/12", "appVersion": "7.3.0"}
            {"url": "https://www.artsy.net/artist/kaws", "platform": "ios", "time": "2026-11-27T10:00:00Z"}
            {"url": 12}
            """
        let j = try Self.json(try CLI.run(["traffic", "-", "--format", "json", "--config", "Config/routes.json", "--max-bad-lines", "50%"], stdin: lines))
        #expect(j["total"] as? Int == 7)
        #expect(j["badLines"] as? Int == 1)
        let hits = Dictionary(uniqueKeysWithValues: (j["routes"] as! [[String: Any]]).map { ($0["route"] as! String, $0["hits"] as! Int) })
        #expect(hits["conversation-web"] == 5 && hits["conversation"] == 1 && hits["artist"] == 1)
    }

    @Test func queryValuesAreLeftOutUnlessAskedFor() throws {
        let urls = "/nowhere/page?email=someone%40example.com&token=s3cret#frag\n"
        let hidden = try CLI.run(["traffic", "-", "--config", "Config/routes.json"], stdin: urls)
        #expect(hidden.stdout.contains("/nowhere/page?email=…&token=…#…"), "\(hidden.stdout)")
        #expect(!hidden.stdout.contains("s3cret") && !hidden.stdout.contains("example.com"))
        let json = try CLI.run(["traffic", "-", "--config", "Config/routes.json", "--format", "markdown"], stdin: urls)
        #expect(!json.stdout.contains("s3cret"))
        let shown = try CLI.run(["traffic", "-", "--config", "Config/routes.json", "--show-query"], stdin: urls)
        #expect(shown.stdout.contains("token=s3cret"))
        // In a weighed diff too: params read from users' URLs show as keys only.
        let next = try CLI.temporaryFile(Manifests.bundled.replacingOccurrences(of: #""destination": "Artist","#, with: #""destination": "ArtistV2","#))
        let d = try CLI.run(["diff", "Config/routes.json", next, "--traffic", "-", "--fail-on", "none"],
                            stdin: "/artist/banksy?secret=hunter2\n")
        #expect(d.stdout.contains("weighted by requests:") && !d.stdout.contains("hunter2"), "\(d.stdout)")
    }

    /// Removing a route the log hits heavily weighs far more than removing one it never
    /// hits, and `--fail-on-share` tells them apart.
    @Test func aWeightedDiffTellsAHeavilyUsedRouteFromAnUnusedOne() throws {
        let log = Self.accessLog(lines: 20_000, seed: 9)
        let file = try CLI.temporaryFile(log.text, name: "access.log")
        func without(_ name: String) throws -> String {
            var document = try #require(try JSONSerialization.jsonObject(with: Data(Manifests.bundled.utf8)) as? [String: Any])
            document["routes"] = (document["routes"] as! [[String: Any]]).filter { $0["name"] as? String != name }
            return try CLI.temporaryFile(String(decoding: try JSONSerialization.data(withJSONObject: document), as: UTF8.self))
        }
        let heavy = try CLI.run(["diff", "Config/routes.json", try without("artwork"), "--traffic", file, "--fail-on", "none",
                                 "--fail-on-share", "breaking=0.1%", "--format", "json"])
        let unused = try CLI.run(["diff", "Config/routes.json", try without("show-info"), "--traffic", file, "--fail-on", "none",
                                  "--fail-on-share", "breaking=0.1%", "--format", "json"])
        #expect(heavy.status == 1, "\(heavy.stderr)")
        #expect(unused.status == 0, "\(unused.stderr)")
        let heavyShare = try #require(((try Self.json(heavy))["traffic"] as? [String: Any])?["severities"] as? [String: [String: Any]])
        let unusedShare = try #require(((try Self.json(unused))["traffic"] as? [String: Any])?["severities"] as? [String: [String: Any]])
        // Artwork links break in apps; on the web (a variant presents them `web`) one web
        // page becomes another: a change.
        let artwork = log.counts.filter { $0.key.hasPrefix("/artwork/") || $0.key.hasPrefix("/works/") }
        #expect(heavyShare["breaking"]?["hits"] as? Int == artwork.filter { $0.key.hasSuffix(" []") }.values.reduce(0, +))
        #expect(heavyShare["changed"]?["hits"] as? Int == artwork.filter { $0.key.hasSuffix(" [web]") }.values.reduce(0, +))
        #expect(unusedShare["breaking"]?["hits"] as? Int == 0)
        // The generated findings are still there, below; the markdown leads with the weighted table.
        let md = try CLI.run(["diff", "Config/routes.json", try without("artwork"), "--traffic", file, "--fail-on", "none", "--format", "markdown"])
        let weighted = try #require(md.stdout.range(of: "**By real traffic**"))
        let all = try #require(md.stdout.range(of: "**All findings**"))
        #expect(weighted.lowerBound < all.lowerBound)
        // --fail-on still works beside it, and --fail-on-share needs traffic.
        let both = try CLI.run(["diff", "Config/routes.json", try without("artwork"), "--traffic", file])
        #expect(both.status == 1)
        let noTraffic = try CLI.run(["diff", "Config/routes.json", try without("artwork"), "--fail-on-share", "breaking=1%"])
        #expect(noTraffic.status == 2)
        let badShare = try CLI.run(["diff", "Config/routes.json", "Config/routes.json", "--traffic", file, "--fail-on-share", "broken=1"])
        #expect(badShare.status == 2)
    }

    /// Switchboard's own access log is traffic, and `--server` judges by the manifest a
    /// running server has in service.
    @Test func theServersOwnLogAndItsManifest() throws {
        let curl = try Subprocess.tool("curl", package: "curl")
        let server = try CLI.Running(["serve", "--config", "Config/routes.json", "--port", "0", "--access-log", "--trusted-proxy", "127.0.0.1"])
        #expect(server.waitFor("serving on 127.0.0.1:"), "\(server.log)")
        let after = try #require(server.log.split(separator: "serving on 127.0.0.1:").last)
        let port = try #require(Int(String(after.prefix { $0.isNumber })))
        // Through a proxy (curl stands for it): two clients it forwards, and itself.
        for (url, client) in [("%2Fartist%2Fbanksy", "198.51.100.1"), ("%2Fartist%2Fbanksy", "198.51.100.2"), ("%2Fnope%2F12", "")] {
            _ = try Subprocess.run(curl, ["-s", "-H", "X-Forwarded-For: \(client)", "http://127.0.0.1:\(port)/v1/resolve?url=\(url)&platform=ios"])
        }
        _ = try Subprocess.run(curl, ["-s", "http://127.0.0.1:\(port)/healthz"])
        let served = try CLI.run(["traffic", "-", "--server", "http://127.0.0.1:\(port)", "--format", "json"], stdin: "/artist/banksy\n")
        #expect(served.status == 0, "\(served.stderr)")
        #expect((try Self.json(served))["total"] as? Int == 1)
        _ = server.stop()
        _ = server.waitFor("(the whole log, to its end)")
        let log = try CLI.temporaryFile(server.log, name: "switchboard.log")
        let report = try Self.json(try CLI.run(["traffic", log, "--config", "Config/routes.json", "--format", "json"]))
        #expect(report["total"] as? Int == 3, "\(report)")
        #expect(report["clients"] as? Int == 3, "the log's clients: the two forwarded and the proxy itself")
        #expect(report["badLines"] as? Int == 0)
        #expect((report["outcomes"] as? [String: Int])?["fallback"] == 1)
        #expect((report["routes"] as? [[String: Any]])?.first { $0["route"] as? String == "artist" }?["hits"] as? Int == 2)
    }
}
