import Foundation
import Testing
import TestSupport
import SwitchboardServer

/// `switchboard serve` run as a process: signals, exit codes, start-up refusals.
@Suite(.serialized)
struct ServeProcessTests {
    static let executable = Subprocess.switchboard

    /// A running `switchboard serve`, its port read from its start-up line.
    final class Served {
        let process = Process()
        let stderr = Pipe()
        var port = 0
        var log = ""

        init(_ arguments: [String], environment: [String: String]? = nil, portFlag: Bool = true) throws {
            process.executableURL = ServeProcessTests.executable
            process.arguments = ["serve"] + (portFlag ? ["--port", "0", "--threads", "2"] : []) + arguments
            // No drain unless a test asks for one: a SIGTERM here is a test's end, not a rollout.
            process.environment = ProcessInfo.processInfo.environment.merging(["SWITCHBOARD_DRAIN_SECONDS": "0"]) { $1 }
                .merging(environment ?? [:]) { $1 }
            process.standardError = stderr
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            while port == 0 {
                let data = stderr.fileHandleForReading.availableData
                if data.isEmpty { break }
                log += String(decoding: data, as: UTF8.self)
                if let match = log.firstMatch(of: /on 127\.0\.0\.1:(\d+)/) { port = Int(match.1)! }
            }
        }

        /// Sends a signal and waits for the exit status.
        /// Sends a signal and waits for the exit status (-1 if it had to be killed).
        func stop(_ signal: Int32 = SIGTERM) -> Int32 {
            kill(process.processIdentifier, signal)
            return waitForExit()
        }

        /// Waits up to 20 s for the process to exit; kills it (and answers -1) otherwise,
        /// so a broken shutdown fails the test instead of hanging the suite.
        func waitForExit() -> Int32 {
            if !eventually(within: 20, { !process.isRunning }) {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                return -1
            }
            process.waitUntilExit()
            return process.terminationStatus
        }
    }

    @Test func servesAndStopsCleanlyOnSIGTERM() throws {
        let served = try Served(["--config", Manifests.root.appendingPathComponent("Config/routes.json").path])
        #expect(served.port > 0, "\(served.log)")
        #expect(try RawHTTP.get("/healthz", port: served.port).status == 200)
        #expect(served.stop(SIGTERM) == 0)
    }

    @Test func finishesInFlightRequestsOnSIGINT() throws {
        let served = try Served(["--config", Manifests.root.appendingPathComponent("Config/routes.json").path])
        // A request whose body is still arriving when the signal comes.
        let body = Array(#"{"urls": ["/artist/banksy"]}"#.utf8)
        let connection = try RawHTTP.Connection(port: served.port)
        connection.send(Array("POST /v1/resolve HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n".utf8)
                        + body.prefix(5))
        #expect(try eventually { try RawHTTP.get("/metrics", port: served.port).status == 200 })
        kill(served.process.processIdentifier, SIGINT)
        // New connections are closed once the daemon is stopping; the open one is served.
        #expect(eventually { (try? RawHTTP.get("/healthz", port: served.port)) == nil })
        connection.send(Array(body.dropFirst(5)))
        let response = try connection.response()
        #expect(response.status == 200)
        #expect(response.text.contains("\"destination\":\"Artist\""))
        #expect(served.waitForExit() == 0)
    }

    /// A poll held on `served` (its ETag, asking `wait` seconds) and an event stream past its
    /// first event, both counted by the server.
    static func holdAPollAndAStream(_ served: Served, wait: Int) throws -> (etag: String, poll: RawHTTP.Connection, stream: EventStreamReader) {
        let etag = try #require(try RawHTTP.get("/v1/manifest", port: served.port).header("ETag"))
        let poll = try RawHTTP.Connection(port: served.port, timeoutSeconds: 20)
        poll.send(Array("GET /v1/manifest HTTP/1.1\r\nHost: x\r\nIf-None-Match: \(etag)\r\nPrefer: wait=\(wait)\r\n\r\n".utf8))
        let stream = try EventStreamReader(port: served.port)
        #expect(stream.events(1).last?.event == "manifest")
        #expect(try eventually { try RawHTTP.get("/metrics", port: served.port).text.contains("switchboard_held_polls 1") })
        return (etag, poll, stream)
    }

    @Test func sigtermAnswersHeldPollsAndEndsStreamsBeforeExiting() throws {
        let served = try Served(["--config", Manifests.root.appendingPathComponent("Config/routes.json").path])
        let (_, poll, stream) = try Self.holdAPollAndAStream(served, wait: 300)
        kill(served.process.processIdentifier, SIGTERM)
        let answer = try poll.response()
        #expect(answer.status == 304)
        #expect(answer.header("Preference-Applied") == "wait=25")
        _ = stream.drain(for: 5)
        #expect(stream.ended, "the stream ends with its closing chunk")
        #expect(served.waitForExit() == 0)
    }

    /// SIGTERM drains (docs/operations.md, "Stopping: a drain"): `/readyz` fails at once, every request is still answered
    /// (new connections too, each answer closing its connection) for `--drain-seconds`,
    /// then held polls are answered 304, the listener closes and the process exits 0.
    @Test func sigtermDrainsBeforeItStops() throws {
        let served = try Served(["--config", Manifests.root.appendingPathComponent("Config/routes.json").path],
                                environment: ["SWITCHBOARD_DRAIN_SECONDS": "3"])
        let etag = try #require(try RawHTTP.get("/v1/manifest", port: served.port).header("ETag"))
        let poll = try RawHTTP.Connection(port: served.port, timeoutSeconds: 20)
        poll.send(Array("GET /v1/manifest HTTP/1.1\r\nHost: x\r\nIf-None-Match: \(etag)\r\nPrefer: wait=20\r\n\r\n".utf8))
        let kept = try RawHTTP.Connection(port: served.port)
        #expect(try kept.exchanging("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n").header("Connection") == nil)
        #expect(try eventually { try RawHTTP.get("/metrics", port: served.port).text.contains("switchboard_held_polls 1") })
        #expect(try RawHTTP.get("/readyz", port: served.port).status == 200)
        let signalled = Date()
        kill(served.process.processIdentifier, SIGTERM)
        #expect(try eventually { try RawHTTP.get("/readyz", port: served.port).status == 503 })
        let readiness = try RawHTTP.get("/readyz", port: served.port)
        #expect(try readiness.json()["status"] as? String == "draining")
        // A kept-alive connection and a new one are both answered, and told to close.
        let onKept = try kept.exchanging("GET /v1/resolve?url=/artist/banksy HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(onKept.status == 200 && onKept.header("Connection") == "close")
        let fresh = try RawHTTP.get("/v1/resolve?url=/artist/banksy", port: served.port)
        #expect(try fresh.json()["destination"] as? String == "Artist")
        #expect(Date().timeIntervalSince(signalled) < 2.5, "still within the drain")
        // The held poll is answered when the drain ends, before the 20 s it asked for.
        let answer = try poll.response()
        let waited = Date().timeIntervalSince(signalled)
        #expect(answer.status == 304)
        #expect(waited >= 2.9 && waited < 10, "\(waited) s")
        #expect(served.waitForExit() == 0)
        let log = served.log + String(decoding: served.stderr.fileHandleForReading.readAll(), as: UTF8.self)
        #expect(log.contains("draining: /readyz fails"))
    }

    /// SIGINT, or a second SIGTERM, ends a drain at once: an operator who means it.
    @Test func aSecondSignalEndsTheDrain() throws {
        for second in [SIGINT, SIGTERM] {
            let served = try Served(["--config", Manifests.root.appendingPathComponent("Config/routes.json").path],
                                    environment: ["SWITCHBOARD_DRAIN_SECONDS": "60"])
            kill(served.process.processIdentifier, SIGTERM)
            #expect(try eventually { try RawHTTP.get("/readyz", port: served.port).status == 503 })
            let started = Date()
            #expect(served.stop(second) == 0)
            #expect(Date().timeIntervalSince(started) < 10)
        }
    }

    /// `--max-wait` caps `Prefer: wait`: a poll asking for 60 s is granted 2, answered 304
    /// after about 2 s, and told so in `Preference-Applied`; settings outside their ranges
    /// are refused at start.
    @Test func maxWaitCapsWhatAPollIsGranted() throws {
        let served = try Served(["--config", Manifests.root.appendingPathComponent("Config/routes.json").path, "--max-wait", "2"])
        let etag = try #require(try RawHTTP.get("/v1/manifest", port: served.port).header("ETag"))
        let started = Date()
        let answer = try RawHTTP.get("/v1/manifest", headers: [("If-None-Match", etag), ("Prefer", "wait=60")], port: served.port)
        let waited = Date().timeIntervalSince(started)
        #expect(answer.status == 304)
        #expect(answer.header("Preference-Applied") == "wait=2")
        #expect(waited >= 1.9 && waited < 6, "\(waited) s")
        #expect(served.stop() == 0)
        for (flags, message) in [(["--max-wait", "0"], "--max-wait must be between 1 and 300"),
                                 (["--max-wait", "301"], "--max-wait must be between 1 and 300"),
                                 (["--drain-seconds=-1"], "--drain-seconds must be between 0 and 3600"),
                                 (["--forwarded-header", "x-real-ip"], "unknown forwarded header 'x-real-ip'")] {
            let refused = try Subprocess.run(Self.executable, ["serve", "--port", "0"] + flags)
            #expect(refused.status == 2, "\(flags)")
            #expect(refused.stderr.contains(message), "\(flags): \(refused.stderr)")
        }
        let environment = try Subprocess.run(Self.executable, ["serve", "--port", "0"], environment: ["SWITCHBOARD_MAX_WAIT": "soon"])
        #expect(environment.status == 2 && environment.stderr.contains("SWITCHBOARD_MAX_WAIT='soon' is not a number"))
    }

    /// `--max-live` (here from the environment, as the Deployment sets it) caps held polls
    /// and streams together: past it a poll is answered at once and a stream refused (429
    /// here: the one client block holds all of them, its share).
    @Test func maxLiveCapsHeldPollsAndStreamsTogether() throws {
        let served = try Served(["--config", Manifests.root.appendingPathComponent("Config/routes.json").path],
                                environment: ["SWITCHBOARD_MAX_LIVE": "2"])
        #expect(served.log.contains("live=2") || served.log.contains(#""live":"2""#), "\(served.log)")
        let (etag, poll, stream) = try Self.holdAPollAndAStream(served, wait: 20)
        let started = Date()
        let third = try RawHTTP.get("/v1/manifest", headers: [("If-None-Match", etag), ("Prefer", "wait=20")], port: served.port)
        #expect(third.status == 304 && third.header("Preference-Applied") == nil)
        #expect(Date().timeIntervalSince(started) < 5)
        let refused = try RawHTTP.get("/v1/events", port: served.port)
        #expect(refused.status == 429 && refused.header("Retry-After") != nil)
        #expect(try RawHTTP.get("/metrics", port: served.port).text.contains(#"switchboard_share_refusals_total{share="live",holder="client"} 2"#))
        #expect(served.stop() == 0)
        let invalid = try Subprocess.run(Self.executable, ["serve", "--port", "0", "--max-live", "0"])
        #expect(invalid.status == 2 && invalid.stderr.contains("--max-live must be at least 1"), "\(invalid.stderr)")
    }

    /// A query of 600 items once ran libmicrohttpd out of connection memory: the request
    /// went unanswered and was never counted as finished, so every later stop waited out
    /// its grace period. Now it is answered, and a stop after it and after a header
    /// section too large for the connection's memory is as quick as one after nothing.
    @Test func aStopAfterRequestsLibmicrohttpdCouldNotHoldIsQuick() throws {
        let served = try Served(["--config", Manifests.root.appendingPathComponent("Config/routes.json").path])
        let query = String(repeating: "a=b&", count: 600)
        #expect(try RawHTTP.get("/healthz?" + query, port: served.port).status == 200)
        let resolved = try RawHTTP.get("/v1/resolve?url=%2Fartist%2Fbanksy&" + query, port: served.port)
        #expect(try resolved.json()["destination"] as? String == "Artist")
        let headers = (0..<1500).map { "X-\($0): \(String(repeating: "v", count: 20))\r\n" }.joined()
        _ = try? RawHTTP.exchange(Array("GET /healthz HTTP/1.1\r\nHost: x\r\n\(headers)\r\n".utf8), port: served.port)
        let started = Date()
        #expect(served.stop() == 0)
        // Far from the 10 s grace period a request never counted finished made every stop
        // wait (the release build stops in milliseconds; 3 s leaves room for a sanitizer).
        #expect(Date().timeIntervalSince(started) < 3, "\(Date().timeIntervalSince(started)) s")
    }

    @Test func readsItsSettingsFromTheEnvironmentWithFlagsWinning() throws {
        let folder = try ManifestFolder(Manifests.small(version: 3, destination: "FromEnv"))
        let served = try Served([], environment: ["SWITCHBOARD_CONFIG": folder.manifest.path, "SWITCHBOARD_PORT": "0",
                                                  "SWITCHBOARD_THREADS": "1", "SWITCHBOARD_HOST": "127.0.0.1"], portFlag: false)
        #expect(try RawHTTP.get("/v1/resolve?url=/artwork/x", port: served.port).json()["destination"] as? String == "FromEnv")
        #expect(served.stop() == 0)
        let flagged = try Served(["--config", Manifests.root.appendingPathComponent("Config/routes.json").path],
                                 environment: ["SWITCHBOARD_CONFIG": folder.manifest.path])
        #expect(try RawHTTP.get("/v1/resolve?url=/artwork/x", port: flagged.port).json()["destination"] as? String == "Artwork")
        #expect(flagged.stop() == 0)
        let bad = try Subprocess.run(Self.executable, ["serve"], environment: ["SWITCHBOARD_PORT": "eighty"])
        #expect(bad.status == 2)
    }

    @Test func logsOneStructuredLinePerReloadAndPerRejectedManifest() throws {
        let folder = try ManifestFolder(Manifests.small(version: 1))
        let served = try Served(["--config", folder.manifest.path, "--access-log"])
        try folder.replace(Manifests.small(version: 2))
        #expect(try eventually { try RawHTTP.get("/readyz", port: served.port).json()["version"] as? Int == 2 })
        try folder.replace("{ not json")
        #expect(try eventually { try RawHTTP.get("/readyz", port: served.port).json()["lastReloadError"] is String })
        #expect(served.stop() == 0)
        let rest = String(decoding: served.stderr.fileHandleForReading.readAll(), as: UTF8.self)
        let lines = (served.log + rest).split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String]
        }
        #expect(lines.filter { $0["message"] == "manifest reloaded" }.map { $0["version"] } == ["2"])
        let rejected = lines.filter { $0["message"] == "manifest rejected, keeping the last good one" }
        #expect(rejected.count == 1)
        #expect(rejected.first?["error"]?.contains("invalid JSON at byte 2") == true)
        #expect(lines.contains { $0["message"] == "request" && $0["target"] == "/readyz" && $0["status"] == "200" })
        #expect(lines.allSatisfy { $0["time"] != nil && $0["level"] != nil })
    }

    @Test func reloadsOnSIGHUP() throws {
        let folder = try ManifestFolder(Manifests.small(version: 1))
        let served = try Served(["--config", folder.manifest.path])
        defer { _ = served.stop() }
        try Data(Manifests.small(version: 7, destination: "Seven").utf8).write(to: folder.manifest)
        kill(served.process.processIdentifier, SIGHUP)
        #expect(try eventually {
            try RawHTTP.get("/v1/resolve?url=/artwork/x", port: served.port).json()["destination"] as? String == "Seven"
        })
    }

    @Test func refusesToStartOnAnInvalidManifest() throws {
        let folder = try ManifestFolder(#"{"version": 1, "routes": []}"#)
        let refused = try Subprocess.run(Self.executable, ["serve", "--port", "0", "--config", folder.manifest.path])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("error[empty-routes] /routes"))
    }

    @Test func exits2WhenThePortIsTaken() throws {
        let first = try Served(["--config", Manifests.root.appendingPathComponent("Config/routes.json").path])
        defer { _ = first.stop() }
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = ["serve", "--port", String(first.port), "--config", Manifests.root.appendingPathComponent("Config/routes.json").path]
        process.standardError = FileHandle.nullDevice
        try process.run()
        let exited = eventually(within: 10) { !process.isRunning }
        if !exited { process.terminate() }
        process.waitUntilExit()
        #expect(exited)
        #expect(process.terminationStatus == 2)
    }

    @Test func validateChecksWhatARunningServerServes() throws {
        let folder = try ManifestFolder(Manifests.bundled)
        let server = try SwitchboardServer(configuration: .init(manifestPath: folder.manifest.path, port: 0, watch: false))
        defer { server.stop(gracePeriod: .zero) }
        let cases = folder.url.appendingPathComponent("cases.txt")
        // More than one batch of 1000, in order.
        var lines = (0..<1200).map { "https://www.artsy.net/artwork/a\($0) -> Artwork" }
        lines.append("/user/conversations/12 -> Conversation")
        try Data(lines.joined(separator: "\n").utf8).write(to: cases)
        let validated = try Subprocess.run(Self.executable, ["validate", "--server", "http://127.0.0.1:\(server.port)",
                                                             "--app-version", "7.1.0", cases.path])
        let text = validated.stdout
        #expect(validated.status == 1)
        #expect(text.contains("FAIL line 1201: /user/conversations/12 -> Conversation"))
        #expect(text.contains("  tried conversation /user/conversations/:id: refused (since 7.2.0 > appVersion 7.1.0)"))
        #expect(text.hasSuffix("1200 passed, 1 failed\n"))
    }
}
