import SystemSupport

extension DescriptorLimit {
    /// `configuration` with its connection caps lowered to fit: all connections within
    /// the descriptors left after ``reserved(threads:)``, and one address within a
    /// quarter of those, so that no single client can take them all.
    public func fitting(_ configuration: HTTPDaemon.Configuration) -> HTTPDaemon.Configuration {
        var fitted = configuration
        let available = max(8, descriptors - Self.reserved(threads: configuration.threads))
        fitted.connectionLimit = min(configuration.connectionLimit, available)
        fitted.perIPConnectionLimit = min(configuration.perIPConnectionLimit, max(1, fitted.connectionLimit / 4))
        return fitted
    }
}
