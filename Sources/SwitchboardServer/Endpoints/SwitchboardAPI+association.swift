import MicroHTTPD
import RouteMatching
import Switchboard

extension SwitchboardAPI {
    /// `GET`/`HEAD /.well-known/apple-app-site-association` (and `/apple-app-site-association`)
    /// and `/.well-known/assetlinks.json`: the request's host's file, made from the manifest
    /// in service (``ServedManifest/associationFile(apple:host:)``). Conditional and gzip
    /// as the manifest is; never a redirect; 404 for a host the manifest does not list or
    /// a platform it names no app for.
    func associationFile(_ request: HTTPRequest, apple: Bool) -> HTTPResponse {
        let file = apple ? "apple-app-site-association" : "assetlinks.json"
        // Behind a trusted proxy, the host it forwarded, else the one it was asked for.
        let named = (request.proxy != nil ? request.header(.forwardedHost).flatMap(Self.lastListed) : nil) ?? request.header(.host)
        guard let named, case .success(let key) = HostName.key(listed: named) else {
            return Problem(status: 404, title: "Not Found", detail: "no \(file) without a Host").response
        }
        let served = store.current
        guard served.compiled.scope.hosts.contains(key) else {
            return Problem(status: 404, title: "Not Found", detail: "the manifest does not list \(key)").response
        }
        guard let prepared = served.associationFile(apple: apple, host: key) else {
            return Problem(status: 404, title: "Not Found",
                           detail: "the manifest names no \(apple ? "Apple" : "Android") app under \"apps\"").response
        }
        if let ifNoneMatch = request.headerBytes(.ifNoneMatch), Self.matches(ifNoneMatch, prepared.etag) {
            return HTTPResponse(status: 304, prepared: prepared.notModified)
        }
        return HTTPResponse(status: 200, prepared: Self.acceptsGzip(request.headerBytes(.acceptEncoding)) ? prepared.gzip : prepared.plain)
    }

    /// The last of a comma-separated list (the value the nearest proxy added), trimmed.
    static func lastListed(_ value: String) -> String? {
        guard let last = value.split(separator: ",").last else { return nil }
        let trimmed = last.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed()
        return trimmed.isEmpty ? nil : String(trimmed)
    }
}
