import TestSupport
import Foundation
import Testing
@testable import SwitchboardServer

@Suite(.serialized)
struct HotReloadTests {
    func etag(_ port: Int) throws -> String? {
        try RawHTTP.get("/v1/manifest", port: port).header("ETag")
    }

    func destination(_ port: Int) throws -> String? {
        try RawHTTP.get("/v1/resolve?url=/artwork/x", port: port).json()["destination"] as? String
    }

    @Test func reloadsOnAtomicRename() throws {
        let folder = try ManifestFolder(Manifests.small(version: 1))
        let server = try SwitchboardServer(configuration: .init(manifestPath: folder.manifest.path, port: 0))
        defer { server.stop(gracePeriod: .zero) }
        let before = try etag(server.port)
        try folder.replace(Manifests.small(version: 2, destination: "ArtworkV2"))
        #expect(try eventually { try destination(server.port) == "ArtworkV2" })
        #expect(try etag(server.port) != before)
        let ready = try RawHTTP.get("/readyz", port: server.port).json()
        #expect(ready["version"] as? Int == 2)
        #expect(ready["reloads"] as? Int == 1)
    }

    @Test func reloadsOnAKubernetesStyleSymlinkSwap() throws {
        // A ConfigMap volume: routes.json -> ..data/routes.json, ..data -> ..2026_v1;
        // an update writes ..2026_v2, then renames a new ..data symlink over the old.
        let root = try ManifestFolder("{}")
        let fm = FileManager.default
        let v1 = root.url.appendingPathComponent("..2026_v1"), v2 = root.url.appendingPathComponent("..2026_v2")
        try fm.createDirectory(at: v1, withIntermediateDirectories: true)
        try Data(Manifests.small(version: 1).utf8).write(to: v1.appendingPathComponent("routes.json"))
        try fm.createSymbolicLink(atPath: root.url.appendingPathComponent("..data").path, withDestinationPath: "..2026_v1")
        let mounted = root.url.appendingPathComponent("config.json")
        try fm.createSymbolicLink(atPath: mounted.path, withDestinationPath: "..data/routes.json")
        let server = try SwitchboardServer(configuration: .init(manifestPath: mounted.path, port: 0))
        defer { server.stop(gracePeriod: .zero) }
        #expect(try destination(server.port) == "Artwork")
        try fm.createDirectory(at: v2, withIntermediateDirectories: true)
        try Data(Manifests.small(version: 2, destination: "Swapped").utf8).write(to: v2.appendingPathComponent("routes.json"))
        try fm.createSymbolicLink(atPath: root.url.appendingPathComponent("..data_tmp").path, withDestinationPath: "..2026_v2")
        #expect(rename(root.url.appendingPathComponent("..data_tmp").path, root.url.appendingPathComponent("..data").path) == 0)
        #expect(try eventually { try destination(server.port) == "Swapped" })
    }

    @Test func anInvalidManifestKeepsTheLastGoodOne() throws {
        let folder = try ManifestFolder(Manifests.small(version: 1))
        let server = try SwitchboardServer(configuration: .init(manifestPath: folder.manifest.path, port: 0))
        defer { server.stop(gracePeriod: .zero) }
        let good = try etag(server.port)
        try folder.replace(#"{"version": 2, "routes": [{"name": "a", "pattern": "/a"}]}"#)
        #expect(try eventually { (try RawHTTP.get("/readyz", port: server.port).json()["lastReloadError"] as? String) != nil })
        let ready = try RawHTTP.get("/readyz", port: server.port).json()
        #expect((ready["lastReloadError"] as? String)?.contains("error[missing-field] /routes/0/destination") == true)
        #expect(ready["version"] as? Int == 1)
        #expect(try etag(server.port) == good)
        #expect(try RawHTTP.get("/metrics", port: server.port).text.contains("switchboard_manifest_reload_failures_total 1"))
        // A truncated file is refused the same way.
        try folder.replace(String(Manifests.small(version: 3).prefix(40)))
        #expect(try eventually { try RawHTTP.get("/metrics", port: server.port).text.contains("switchboard_manifest_reload_failures_total 2") })
        #expect(try etag(server.port) == good)
        // And the next good file is served, clearing the error.
        try folder.replace(Manifests.small(version: 4, destination: "Fixed"))
        #expect(try eventually { try destination(server.port) == "Fixed" })
        #expect(try RawHTTP.get("/readyz", port: server.port).json()["lastReloadError"] is NSNull)
    }

    /// Ten routes of one pattern with 8 optional groups, 1.2 KB, written over the manifest in
    /// service: refused with nine errors (each later route once), the last good one served.
    @Test func aManifestBuiltToBlowUpTheChecksIsRefusedInAFewLines() throws {
        let folder = try ManifestFolder(Manifests.small(version: 1))
        let server = try SwitchboardServer(configuration: .init(manifestPath: folder.manifest.path, port: 0))
        defer { server.stop(gracePeriod: .zero) }
        let good = try etag(server.port)
        let pattern = "/p" + (0..<8).map { "(/:v\($0))" }.joined()
        let routes = (0..<10).map { #"{"name": "r\#($0)", "pattern": "\#(pattern)", "destination": "S"}"# }
        try folder.replace(#"{"version": 2, "routes": [\#(routes.joined(separator: ", "))]}"#)
        #expect(try eventually { (try RawHTTP.get("/readyz", port: server.port).json()["lastReloadError"] as? String) != nil })
        let error = try #require(try RawHTTP.get("/readyz", port: server.port).json()["lastReloadError"] as? String)
        // `/readyz` summarizes: the count and the first error.
        #expect(error.contains(": 9 errors: error[duplicate] /routes/1/pattern"), "\(error)")
        #expect(error.utf8.count < 2_000)
        #expect(try etag(server.port) == good)
        #expect(try destination(server.port) == "Artwork")
    }

    @Test func explicitReloadLikeSIGHUP() throws {
        let folder = try ManifestFolder(Manifests.small(version: 1))
        let server = try SwitchboardServer(configuration: .init(manifestPath: folder.manifest.path, port: 0, watch: false))
        defer { server.stop(gracePeriod: .zero) }
        #expect(server.reload() == "unchanged")
        try Data(Manifests.small(version: 5, destination: "Five").utf8).write(to: folder.manifest)
        #expect(server.reload().hasPrefix("reloaded version 5"))
        #expect(try destination(server.port) == "Five")
    }

    @Test func twoServersOfTheSameManifestSendTheSameETag() throws {
        let a = try ManifestFolder(Manifests.bundled), b = try ManifestFolder(Manifests.bundled)
        let one = try SwitchboardServer(configuration: .init(manifestPath: a.manifest.path, port: 0, watch: false))
        let two = try SwitchboardServer(configuration: .init(manifestPath: b.manifest.path, port: 0, watch: false))
        defer { one.stop(gracePeriod: .zero); two.stop(gracePeriod: .zero) }
        #expect(try etag(one.port) == etag(two.port))
        #expect(try RawHTTP.get("/v1/manifest", port: one.port).body == RawHTTP.get("/v1/manifest", port: two.port).body)
    }

    @Test func underLoadWhileTheManifestIsReplacedEvery100ms() throws {
        let folder = try ManifestFolder(Manifests.small(version: 1))
        let server = try SwitchboardServer(configuration: .init(manifestPath: folder.manifest.path, port: 0, threads: 2))
        defer { server.stop(gracePeriod: .zero) }
        let port = server.port
        var etags = Set<String>()
        etags.insert(try #require(try etag(port)))
        // The ETags each version will have, computed by loading each file offline.
        let versions = (2...11).map { Manifests.small(version: $0, destination: "V\($0)") }
        for json in versions { etags.insert(try CompiledManifestETag.of(json)) }
        let allowed = etags
        let writer = BackgroundThread { () -> Bool in
            for json in versions {
                guard (try? folder.replace(json)) != nil else { return false }
                usleep(100_000)
            }
            return true
        }
        let clients = (0..<4).map { _ in
            BackgroundThread { () -> (ok: Int, failed: Int, foreign: Int, seen: Set<String>) in
                var ok = 0, failed = 0, foreign = 0, seen = Set<String>()
                let deadline = Date().addingTimeInterval(1.3)
                while Date() < deadline {
                    guard let r = try? RawHTTP.get("/v1/resolve?url=/artwork/x", port: port), r.status == 200,
                          let json = try? r.json(), let manifest = json["manifest"] as? [String: Any],
                          let etag = manifest["etag"] as? String else { failed += 1; continue }
                    if allowed.contains(etag) { ok += 1 } else { foreign += 1 }
                    seen.insert(etag)
                }
                return (ok, failed, foreign, seen)
            }
        }
        #expect(writer.join())
        var total = (ok: 0, failed: 0, foreign: 0)
        var seen = Set<String>()
        for client in clients {
            let r = client.join()
            total = (total.ok + r.ok, total.failed + r.failed, total.foreign + r.foreign)
            seen.formUnion(r.seen)
        }
        #expect(total.failed == 0)
        #expect(total.foreign == 0)
        // Requests were answered while the swaps happened, however fast this machine (or a
        // sanitizer) lets them go: more than one version was seen, and none failed.
        #expect(total.ok > 0 && seen.count >= 2, "\(total.ok) answered, \(seen.count) versions seen")
        #expect(try eventually { try destination(port) == "V11" })
    }
}
