import TestSupport
import MicroHTTPD
import SwitchboardServer

/// A server on a port of its own, serving a manifest in a folder of its own; stopped
/// when the suite that holds it goes away.
final class LiveServer {
    let folder: ManifestFolder
    let server: SwitchboardServer
    var port: Int { server.port }

    init(_ manifest: String = Manifests.bundled, watch: Bool = false, threads: Int = 2,
         http: HTTPDaemon.Configuration = .init(), ui: Bool = true, limits: RequestLimits = RequestLimits(),
         crossOrigin: CrossOrigin? = nil) throws {
        folder = try ManifestFolder(manifest)
        server = try SwitchboardServer(configuration: .init(manifestPath: folder.manifest.path, port: 0, threads: threads,
                                                            watch: watch, http: http, ui: ui, limits: limits, crossOrigin: crossOrigin))
    }

    deinit { server.stop(gracePeriod: .zero) }
}
