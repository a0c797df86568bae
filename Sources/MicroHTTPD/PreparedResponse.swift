import CMicroHTTPD

/// A libmicrohttpd response object built once (body copied into MHD's memory, headers
/// attached) and queued for any number of requests; destroyed with the last reference.
/// libmicrohttpd reference-counts responses under its own lock, so queueing one from
/// several threads at once is supported.
public final class PreparedResponse: Sendable {
    /// `struct MHD_Response *`; never mutated after `init`, released in `deinit`.
    nonisolated(unsafe) let response: OpaquePointer

    public init?(body: [UInt8], headers: [(String, String)]) {
        guard let response = Self.make(body, headers) else { return nil }
        self.response = response
    }

    static func make(_ body: [UInt8], _ headers: [(String, String)]) -> OpaquePointer? {
        let response = body.withUnsafeBufferPointer { buffer in
            sb_response_copy(buffer.count, buffer.baseAddress)
        }
        guard let response else { return nil }
        for (name, value) in headers where MHD_add_response_header(response, name, value) != .YES {
            MHD_destroy_response(response)
            return nil
        }
        return response
    }

    deinit {
        MHD_destroy_response(response)
    }
}
