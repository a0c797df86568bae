import ServerSystem
import SystemSupport

extension DescriptorLimit {
    /// `configuration` with its connection caps lowered to fit: all connections, with
    /// libmicrohttpd's headroom above them (``HTTPDaemon/Configuration/connectionHeadroom``),
    /// within the descriptors left after ``reserved(threads:)``, and one client's block of
    /// addresses (a /24 or a /64) within an eighth of those, so that a few clients
    /// cannot take them all (five leave more than a third).
    package func fitting(_ configuration: HTTPDaemon.Configuration) -> HTTPDaemon.Configuration {
        var fitted = configuration
        let available = max(8, descriptors - Self.reserved(threads: configuration.threads))
        fitted.connectionLimit = min(configuration.connectionLimit, available - max(8, available / 33))
        fitted.perIPConnectionLimit = min(configuration.perIPConnectionLimit, max(1, fitted.connectionLimit / 8))
        return fitted
    }
}
