import TestSupport
import Foundation
import Synchronization
import SystemSupport
import Testing
@testable import SwitchboardServer

/// Three replicas fed the same manifest, as behind a load balancer.
@Suite(.serialized)
struct ReplicaTests {
    @Test func replicasAgreeAndMoveFromOldToNewOnly() throws {
        let old = Manifests.bundled
        let new = old.replacingOccurrences(of: "\"version\": 1,", with: "\"version\": 2,")
            .replacingOccurrences(of: "\"destination\": \"Artwork\",", with: "\"destination\": \"ArtworkV2\",")
        let replicas = try (0..<3).map { _ in try LiveServer(old, watch: true) }
        let ports = replicas.map(\.port)
        let oldETag = try CompiledManifestETag.of(old), newETag = try CompiledManifestETag.of(new)
        #expect(oldETag != newETag)

        // Identical ETags and identical resolve results.
        let etags = try ports.map { try RawHTTP.get("/v1/manifest", port: $0).header("ETag") }
        #expect(Set(etags) == [oldETag])
        for url in ["https://www.artsy.net/artwork/x?ref=y#z", "artsy://artist/banksy/works", "/nowhere/at/all", "mailto:a@b"] {
            let encoded = url.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let bodies = try ports.map { try RawHTTP.get("/v1/resolve?url=\(encoded)", port: $0).body }
            #expect(Set(bodies).count == 1, "\(url)")
        }

        // Watch every replica while each one's manifest is updated in turn.
        let seen = Locked(Set<String>())
        let stop = Atomic(false)
        let watcher = BackgroundThread {
            while !stop.load(ordering: .relaxed) {
                for port in ports {
                    if let etag = try? RawHTTP.get("/v1/resolve?url=/artwork/x", port: port).json()["manifest"] as? [String: Any],
                       let value = etag["etag"] as? String {
                        seen.withLock { _ = $0.insert(value) }
                    }
                }
            }
        }
        #expect(eventually { !seen.withLock { $0.isEmpty } })
        for replica in replicas {
            try replica.folder.replace(new)
            #expect(try eventually { try RawHTTP.get("/v1/manifest", port: replica.port).header("ETag") == newETag })
        }
        #expect(eventually { seen.withLock { $0.contains(newETag) } })
        stop.store(true, ordering: .relaxed)
        watcher.join()
        #expect(try Set(ports.map { try RawHTTP.get("/v1/manifest", port: $0).header("ETag") }) == [newETag])
        #expect(seen.withLock { $0 }.isSubset(of: [oldETag, newETag]))
        #expect(try RawHTTP.get("/v1/resolve?url=/artwork/x", port: ports[2]).json()["destination"] as? String == "ArtworkV2")
    }
}
