/// Answers requests. Called on libmicrohttpd's threads, concurrently: it must be
/// `Sendable`, must not block, and must not trap (a trap takes the server down).
public protocol HTTPHandler: Sendable {
    func handle(_ request: HTTPRequest) -> HTTPResponse
}
