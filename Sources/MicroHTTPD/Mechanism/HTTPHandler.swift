/// Answers requests. Called on libmicrohttpd's threads, concurrently: it must be
/// `Sendable`, must not block, and must not trap (a trap takes the server down).
package protocol HTTPHandler: Sendable {
    func handle(_ request: HTTPRequest) -> HTTPResponse
    /// ``handle(_:)`` with the connection's ``ScratchBuffers`` to build the answer in;
    /// the daemon calls this one. By default it calls ``handle(_:)``.
    func handle(_ request: HTTPRequest, scratch: inout ScratchBuffers) -> HTTPResponse
}

extension HTTPHandler {
    package func handle(_ request: HTTPRequest, scratch: inout ScratchBuffers) -> HTTPResponse {
        handle(request)
    }
}
