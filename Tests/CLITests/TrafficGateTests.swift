import Foundation
import Testing
import TestSupport

/// Traffic a release gate can trust (docs/pipelines.md): one change one fingerprint
/// whatever tracking params its links carry, a gate that fails closed on traffic it did
/// not read, links told apart from bots and static files, every spelling of the app's
/// hosts one shape, the catch-all counted as nowhere, the formats real edges write.
struct TrafficGateTests {
    static func json(_ out: Subprocess.Output) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: out.stdoutData) as? [String: Any], "\(out.stdout)\(out.stderr)")
    }

    /// Config/routes.json with the artist route sent elsewhere: one breaking change.
    static func artistMoved() throws -> String {
        try CLI.temporaryFile(Manifests.bundled.replacingOccurrences(of: #""destination": "Artist","#, with: #""destination": "ArtistV2","#))
    }

    static func log(_ targets: [String], agent: String = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X)") -> String {
        targets.enumerated().map { i, target in
            "10.0.\(i / 250).\(i % 250) - - [28/Nov/2026:10:00:\(String(format: "%02d", i % 60)) +0000] \"GET \(target) HTTP/1.1\" 200 512 \"-\" \"\(agent)\""
        }.joined(separator: "\n") + "\n"
    }

    @Test func oneChangeIsOneFindingWhateverTrackingParamsItsLinksCarryAndItsIgnoreHoldsOnTheNextLog() throws {
        let next = try Self.artistMoved()
        let today = try CLI.temporaryFile(Self.log(["/artist/banksy?utm_source=newsletter&utm_medium=email", "/artist/kaws",
                                                    "/artist/x?fbclid=abc", "/artist/y?gclid=1&ref=home", "/artist/z?_branch_match_id=9"]),
                                          name: "today.log")
        let out = try CLI.run(["diff", "Config/routes.json", next, "--traffic", today, "--host", "artsy.net", "--fail-on", "none", "--format", "json"])
        let traffic = try #require(try Self.json(out)["traffic"] as? [String: Any])
        let findings = try #require(traffic["findings"] as? [[String: Any]])
        #expect(findings.count == 1, "\(findings.map { $0["fingerprint"] ?? "" })")
        #expect(findings.first?["hits"] as? Int == 5)
        let fingerprint = try #require(findings.first?["fingerprint"] as? String)
        // Accepted today; tomorrow's links carry other click ids and campaigns.
        let ignore = try CLI.temporaryFile("\(fingerprint) the artist screen moved to ArtistV2\n", name: "accepted.txt")
        let tomorrow = try CLI.temporaryFile(Self.log(["/artist/a?utm_campaign=black-friday", "/artist/b?fbclid=zz&ref=story",
                                                       "/artist/c?msclkid=4", "/artist/d"]), name: "tomorrow.log")
        let gate = try CLI.run(["diff", "Config/routes.json", next, "--traffic", tomorrow, "--host", "artsy.net", "--ignore", ignore,
                                "--fail-on", "none", "--fail-on-share", "breaking=0.1%"])
        #expect(gate.status == 0, "\(gate.stdout)\(gate.stderr)")
        #expect(gate.stdout.contains("--fail-on-share breaking=0.1%: 0% of requests break (passes)"), "\(gate.stdout)")
    }

    @Test func aGateThatReadNoRequestFails() throws {
        let next = try Self.artistMoved()
        let csv = try CLI.temporaryFile("timestamp,path,count\n2026-11-28,/artist/banksy,3\n2026-11-28,/artist/kaws,1\n", name: "export.csv")
        for (traffic, why) in [("/dev/null", "no request was read"), (csv, "no request was read from 3 lines")] {
            let gate = try CLI.run(["diff", "Config/routes.json", next, "--traffic", traffic, "--fail-on", "none", "--fail-on-share", "breaking=0.1%"])
            #expect(gate.status == 1, "\(traffic): \(gate.stdout)")
            #expect(gate.stdout.contains("--fail-on-share breaking=0.1%: fails, \(why)"), "\(gate.stdout)")
            let report = try CLI.run(["traffic", traffic, "--config", "Config/routes.json"])
            #expect(report.status == 2 && report.stderr.contains(why), "\(traffic): \(report.stderr)")
        }
        // Without a gate, a diff still reports what it read.
        let plain = try CLI.run(["diff", "Config/routes.json", next, "--traffic", "/dev/null", "--fail-on", "none"])
        #expect(plain.status == 0)
        // A ClickHouse export quotes its counts: read, not refused.
        let quoted = try CLI.run(["traffic", "-", "--config", "Config/routes.json", "--format", "json"],
                                 stdin: #"{"url":"/artist/banksy","hits":"1200"}"# + "\n" + #"{"url":"/artist/kaws","hits":"34"}"# + "\n")
        #expect(quoted.status == 0, "\(quoted.stderr)")
        #expect(try Self.json(quoted)["total"] as? Int == 1234)
    }

    @Test func botsStaticFilesWellKnownPathsAndScannersAreNotLinks() throws {
        var lines = Self.log(["/artist/banksy", "/artwork/soup"])
        lines += Self.log(["/artist/banksy", "/artist/kaws", "/robots.txt"], agent: "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)")
        lines += Self.log(["/favicon.ico", "/.well-known/apple-app-site-association", "/assets/app.3f9a.js", "/images/hero.webp",
                           "/wp-login.php", "/.git/config", "/phpmyadmin/index.php"])
        lines += Self.log(["/artist/warhol"], agent: "curl/8.4.0")
        let file = try CLI.temporaryFile(lines, name: "mixed.log")
        let report = try Self.json(try CLI.run(["traffic", file, "--config", "Config/routes.json", "--host", "artsy.net", "--format", "json"]))
        #expect(report["total"] as? Int == 2)
        let apart = try #require(report["notLinks"] as? [String: Int])
        #expect(apart == ["bot": 4, "static": 2, "well-known": 2, "scanner": 3], "\(apart)")
        #expect((report["nowhere"] as? [[String: Any]])?.isEmpty == true, "\(report["nowhere"] ?? "")")
        let hits = Dictionary(uniqueKeysWithValues: (report["routes"] as! [[String: Any]]).map { ($0["route"] as! String, $0["hits"] as! Int) })
        #expect(hits["artist"] == 1 && hits["artwork"] == 1)
        // --include-bots reads every one of them as a link.
        let all = try Self.json(try CLI.run(["traffic", file, "--config", "Config/routes.json", "--host", "artsy.net", "--format", "json", "--include-bots"]))
        #expect(all["total"] as? Int == 13)
        #expect((all["notLinks"] as? [String: Int])?.isEmpty == true)
    }

    @Test func everySpellingOfTheAppsHostsAndSchemesIsOneShapeAndADoubleSlashIsAPath() throws {
        let urls = ["https://artsy.net/nowhere/1", "https://WWW.Artsy.net./nowhere/2", "https://m.artsy.net:443/nowhere/3",
                    "artsy://nowhere/4", "/nowhere/5"].joined(separator: "\n") + "\n"
        let report = try Self.json(try CLI.run(["traffic", "-", "--config", "Config/routes.json", "--format", "json"], stdin: urls))
        let nowhere = try #require(report["nowhere"] as? [[String: Any]])
        #expect(nowhere.count == 1, "\(nowhere)")
        #expect(nowhere.first?["shape"] as? String == "/nowhere/:int")
        #expect(nowhere.first?["hits"] as? Int == 5)
        // In a web host's log, `//artist/x` is the path /artist/x, not a URL of a host named artist.
        let doubled = try Self.json(try CLI.run(["traffic", try CLI.temporaryFile(Self.log(["//artist/banksy"]), name: "double.log"),
                                                 "--config", "Config/routes.json", "--host", "artsy.net", "--format", "json"]))
        #expect((doubled["outcomes"] as? [String: Int])?["matched"] == 1, "\(doubled["outcomes"] ?? "")")
    }

    @Test func onEigensTableTheCatchAllWebRouteCountsAsGoingNowhere() throws {
        let eigen = "Tests/CLITests/Fixtures/eigen-routes.json"
        let urls = "https://www.artsy.net/artist/banksy\nhttps://www.artsy.net/some/unknown/page\nhttps://www.artsy.net/other/1\n"
        let out = try CLI.run(["traffic", "-", "--config", eigen, "--format", "json"], stdin: urls)
        let report = try Self.json(out)
        let outcomes = try #require(report["outcomes"] as? [String: Int])
        #expect(outcomes["fallback"] == 2 && outcomes["matched"] == 1, "\(outcomes)")
        let standIns = try #require(report["fallbackStandIns"] as? [[String: Any]])
        #expect(standIns.first?["route"] as? String == "web-rest" && standIns.first?["hits"] as? Int == 2, "\(standIns)")
        #expect((report["nowhere"] as? [[String: Any]])?.count == 2)
        let text = try CLI.run(["traffic", "-", "--config", eigen], stdin: urls)
        #expect(text.stdout.contains("route web-rest (a catch-all presented web) stood in for the fallback: 2 requests"), "\(text.stdout)")
    }

    @Test func cloudFrontAndALBLogsAreRead() throws {
        let cloudFront = """
            #Version: 1.0
            #Fields: date time x-edge-location sc-bytes c-ip cs-method cs(Host) cs-uri-stem sc-status cs(Referer) cs(User-Agent) cs-uri-query cs(Cookie) x-edge-result-type x-edge-request-id x-host-header cs-protocol cs-bytes time-taken
            2026-11-28\t10:00:00\tIAD89-C1\t1000\t192.0.2.1\tGET\td111111abcdef8.cloudfront.net\t/artist/banksy\t200\t-\tMozilla/5.0%20(iPhone)\tutm_source=x\t-\tHit\tr1\tartsy.net\thttps\t100\t0.001
            2026-11-28\t10:00:01\tIAD89-C1\t1000\t192.0.2.2\tGET\td111111abcdef8.cloudfront.net\t/nowhere/7\t200\t-\tMozilla/5.0%20(Android)\t-\t-\tHit\tr2\tartsy.net\thttps\t100\t0.001
            2026-11-28\t10:00:02\tIAD89-C1\t1000\t192.0.2.3\tGET\td111111abcdef8.cloudfront.net\t/robots.txt\t200\t-\tGooglebot/2.1\t-\t-\tHit\tr3\tartsy.net\thttps\t100\t0.001

            """
        let cf = try Self.json(try CLI.run(["traffic", try CLI.temporaryFile(cloudFront, name: "E2Q.2026-11-28-10.log"), "--config", "Config/routes.json", "--format", "json"]))
        #expect((cf["formats"] as? [[String: Any]])?.first?["format"] as? String == "cloudfront")
        #expect(cf["total"] as? Int == 2)
        #expect((cf["outcomes"] as? [String: Int])?["matched"] == 1)
        #expect((cf["nowhere"] as? [[String: Any]])?.first?["shape"] as? String == "/nowhere/:int")
        let alb = """
            https 2026-11-28T10:00:00.123456Z app/my-alb/50dc6c495c0c9188 192.0.2.1:46532 10.0.0.1:80 0.000 0.001 0.000 200 200 34 366 "GET https://artsy.net:443/artist/banksy?fbclid=1 HTTP/1.1" "Mozilla/5.0 (iPhone)" ECDHE-RSA-AES128-GCM-SHA256 TLSv1.2 arn:aws:elasticloadbalancing:us-east-2:123:targetgroup/t/1 "Root=1-58337262" "-" "-" 0 2026-11-28T10:00:00.000000Z "forward" "-" "-" "10.0.0.1:80" "200" "-" "-"
            http 2026-11-28T10:00:01.123456Z app/my-alb/50dc6c495c0c9188 192.0.2.2:46533 10.0.0.1:80 0.000 0.001 0.000 200 200 34 366 "POST http://artsy.net:80/api/login HTTP/1.1" "Mozilla/5.0" - - arn:aws:elasticloadbalancing:us-east-2:123:targetgroup/t/1 "Root=1-58337263" "-" "-" 0 2026-11-28T10:00:01.000000Z "forward" "-" "-" "10.0.0.1:80" "200" "-" "-"

            """
        let a = try Self.json(try CLI.run(["traffic", try CLI.temporaryFile(alb, name: "alb.log"), "--config", "Config/routes.json", "--format", "json"]))
        #expect((a["formats"] as? [[String: Any]])?.first?["format"] as? String == "alb")
        #expect(a["total"] as? Int == 1)
        #expect(a["lines"] as? Int == 2 && a["skippedLines"] as? Int == 1)
        #expect((a["outcomes"] as? [String: Int])?["matched"] == 1)
    }

    @Test func reportsAReleaseManagerReads() throws {
        let next = try Self.artistMoved()
        let lines = [#"{"url":"/artist/a","platform":"ios","appVersion":"7.1.0","hits":10}"#,
                     #"{"url":"/artwork/b","platform":"android","appVersion":"7.2.0","hits":30}"#,
                     #"{"url":"/artist/someone%40example.com","platform":"android","hits":5}"#].joined(separator: "\n") + "\n"
        let traffic = try CLI.temporaryFile(lines, name: "requests.jsonl")
        // Where the breaking requests land.
        let json = try Self.json(try CLI.run(["diff", "Config/routes.json", next, "--traffic", traffic, "--fail-on", "none", "--format", "json"]))
        let breakdown = try #require((json["traffic"] as? [String: Any])?["breakdown"] as? [String: [[String: Any]]])
        let platforms = Dictionary(uniqueKeysWithValues: (breakdown["platform"] ?? []).map { ($0["value"] as! String, ($0["requests"] as! Int, $0["breaking"] as! Int)) })
        #expect(platforms["ios"]! == (10, 10) && platforms["android"]! == (35, 5), "\(breakdown)")
        #expect((breakdown["appVersion"] ?? []).contains { $0["value"] as? String == "(none)" && $0["breaking"] as? Int == 5 })
        // An email in a path is masked in every example unless --show-query.
        let text = try CLI.run(["diff", "Config/routes.json", next, "--traffic", traffic, "--fail-on", "none"])
        #expect(!text.stdout.contains("example.com") && text.stdout.contains("/artist/…"), "\(text.stdout)")
        #expect(text.stdout.contains("by platform: android: ") && text.stdout.contains("ios: 10 of 10 break (100%)"), "\(text.stdout)")
        let shown = try CLI.run(["diff", "Config/routes.json", next, "--traffic", traffic, "--fail-on", "none", "--show-query"])
        #expect(shown.stdout.contains("someone%40example.com"))
        // GitHub annotations carry each finding's requests.
        let github = try CLI.run(["diff", "Config/routes.json", next, "--traffic", traffic, "--fail-on", "none", "--format", "github"])
        #expect(github.stdout.contains("15 of 45 requests (33.3%25)"), "\(github.stdout)")
        // JUnit's failures agree with the exit code: a gate that fails on its share, or on nothing read.
        for (traffic, threshold, status) in [(traffic, "breaking=50%", 0), (traffic, "breaking=10%", 1), ("/dev/null", "breaking=10%", 1)] {
            let junit = try CLI.run(["diff", "Config/routes.json", next, "--traffic", traffic, "--fail-on", "none",
                                     "--fail-on-share", threshold, "--format", "junit"])
            #expect(junit.status == Int32(status), "\(threshold) \(traffic): \(junit.stdout)")
            #expect(junit.stdout.contains("<testsuites tests=") && junit.stdout.contains("failures=\"\(status)\""), "\(junit.stdout)")
        }
        // Every format lists routes, as many as --top says.
        let many = (0..<30).map { "/artist/a\($0)\n/artwork/b\($0)\n/show/c\($0)\n" }.joined()
        let markdown = try CLI.run(["traffic", "-", "--config", "Config/routes.json", "--format", "markdown", "--top", "2"], stdin: many)
        #expect(markdown.stdout.contains("**Routes by requests** (the first 2 of 3; --top shows more)"), "\(markdown.stdout)")
        #expect(markdown.stdout.contains("| <code>artist</code> | 30 |"), "\(markdown.stdout)")
        let plain = try CLI.run(["traffic", "-", "--config", "Config/routes.json", "--top", "1"], stdin: many)
        #expect(plain.stdout.contains("... 2 more routes with hits (--top shows more)"), "\(plain.stdout)")
    }

    /// On a terminal (`script` gives the run one), a progress line on standard error every
    /// two seconds, cleared at the end; in a pipe, nothing.
    @Test func aProgressLineOnATerminalOnly() async throws {
        let script = try Subprocess.tool("script", package: "bsdutils")
        let lines = (0..<200_000).map { "/artwork/w-\($0 % 5000)?fbclid=\($0)" }.joined(separator: "\n") + "\n"
        let file = try CLI.temporaryFile(lines, name: "many.txt")
        let command = "\(Subprocess.switchboard.path) traffic \(file) --config \(Subprocess.packageRoot.path)/Config/routes.json --format json > /dev/null"
        let started = ContinuousClock.now
        let terminal = try await Subprocess.runOffThePool(script, ["-qec", command, "/dev/null"])
        #expect(terminal.status == 0, "\(terminal.stdout)\(terminal.stderr)")
        if ContinuousClock.now - started > .seconds(3) {
            #expect(terminal.stdout.contains("switchboard: ") && terminal.stdout.contains(" lines read ("), "\(terminal.stdout.prefix(300))")
            #expect(terminal.stdout.hasSuffix("\r\u{1B}[K"), "the line is cleared at the end")
        }
        let piped = try CLI.run(["traffic", file, "--config", "Config/routes.json", "--format", "json"])
        #expect(piped.status == 0 && piped.stderr.isEmpty, "\(piped.stderr)")
    }
}
