import Foundation
import Testing
import TestSupport
@testable import RouteMatching

/// Host classification against a WHATWG URL parser (node's `URL`, what browsers
/// implement): over generated and mutated URLs, Switchboard either agrees on the host or
/// refuses the URL as internal; it never calls internal a URL a browser would open on
/// another host.
struct BrowserHostDifferentialTests {
    static let scope = URLScope(hosts: ["artsy.net", "live.artsy.net", "localhost:8080"], schemes: ["artsy"])

    /// Deterministic inputs: every combination of scheme, userinfo, host, port and path
    /// fragments known to confuse parsers, plus seeded mutations of them.
    static func inputs() -> [String] {
        let schemes = ["https://", "http://", "HTTPS://", "https:", "https:/", "https:///", "//", "", "artsy://", "javascript://"]
        let userinfo = ["", "user@", "artsy.net@", "a:b@", "@"]
        let hosts = ["artsy.net", "ARTSY.net", "artsy.net.", "www.artsy.net", "www.www.artsy.net", "live.artsy.net", "evil.com",
                     "artsy.net.evil.com", "evilartsy.net", "artsy%2enet", "artsy%2Enet", "ａｒｔｓｙ.net", "artsy。net", "xn--rtsy-5na.net",
                     "årtsy.net", "127.0.0.1", "0x7f.1", "[::1]", "localhost", "artsy.net\\", "evil.com\\@artsy.net", "artsy.net\t",
                     "art sy.net", "artsy.net%00", "", "."]
        let ports = ["", ":443", ":80", ":8080", ":0443", ":", ":99999", ":x"]
        let paths = ["/", "/artwork/x", "\\artwork", "?q=1", "#f", "/@evil.com", "/..//evil.com", ""]
        var out: [String] = []
        for s in schemes { for u in userinfo { for h in hosts { for p in ports.prefix(s.isEmpty ? 1 : ports.count) {
            out.append(s + u + h + p + paths[(out.count) % paths.count])
        } } } }
        // Mutations: insert, delete or replace one byte with a delimiter.
        var rng = SplitMix(seed: 20261121)
        let alphabet = Array("/\\@:.%?#[]&=+ \t2eE0xX".utf8)
        // Mutate mostly what is internal now: that is where a wrong answer would hurt.
        let internalSeeds = out.filter { if case .internal(let u) = scope.classify($0) { return u.host != nil }; return false }
        let seeds = internalSeeds + out.prefix(internalSeeds.count)
        for _ in 0..<12000 {
            var bytes = Array(seeds[Int(rng.next() % UInt64(seeds.count))].utf8)
            let at = bytes.isEmpty ? 0 : Int(rng.next() % UInt64(bytes.count))
            switch rng.next() % 3 {
            case 0: bytes.insert(alphabet[Int(rng.next() % UInt64(alphabet.count))], at: at)
            case 1: if !bytes.isEmpty { bytes.remove(at: at) }
            default: if !bytes.isEmpty { bytes[at] = alphabet[Int(rng.next() % UInt64(alphabet.count))] }
            }
            if let s = String(validating: bytes, as: UTF8.self) { out.append(s) }
        }
        return out
    }

    /// The hostname and port node's URL gives each input (against an unrelated base, so
    /// relative references resolve), or nil when it throws.
    static func browserHosts(_ inputs: [String]) throws -> [(host: String, port: String, scheme: String)?] {
        let script = """
        const lines = require('fs').readFileSync(0, 'utf8').split('\\n').filter(l => l.length).map(l => JSON.parse(l));
        const out = lines.map(s => { try { const u = new URL(s, 'https://base.invalid/'); return [u.hostname, u.port, u.protocol]; } catch (e) { return null; } });
        process.stdout.write(JSON.stringify(out));
        """
        let payload = inputs.map { String(decoding: try! JSONSerialization.data(withJSONObject: $0, options: .fragmentsAllowed), as: UTF8.self) }
            .joined(separator: "\n")
        let node = try Subprocess.run(Subprocess.tool("node", package: "nodejs"), ["-e", script], stdin: Data(payload.utf8))
        #expect(node.status == 0, "node: \(node.stderr)")
        let data = node.stdoutData
        let parsed = try #require(try JSONSerialization.jsonObject(with: data) as? [Any])
        return parsed.map { item in
            guard let triple = item as? [String], triple.count == 3 else { return nil }
            return (triple[0], triple[1], triple[2])
        }
    }

    @Test func neverCallsInternalWhatABrowserOpensElsewhere() throws {
        let inputs = Self.inputs()
        #expect(inputs.count > 10_000)
        let browser = try Self.browserHosts(inputs)
        #expect(browser.count == inputs.count)
        var compared = 0
        for (input, seen) in zip(inputs, browser) {
            guard case .internal(let url) = Self.scope.classify(input), let ours = url.host else { continue }
            compared += 1
            guard let seen, seen.scheme == "https:" || seen.scheme == "http:" else {
                Issue.record("\(input): internal on \(ours), but a browser does not open it as http(s)")
                continue
            }
            var host = seen.host
            while host.hasSuffix(".") { host.removeLast() }
            if host.hasPrefix("www.") { host.removeFirst(4) }
            let key = seen.port.isEmpty ? host : "\(host):\(seen.port)"
            #expect(key == ours, "\(input): internal on \(ours), a browser opens \(seen.host):\(seen.port)")
        }
        #expect(compared > 1_000)
    }
}
