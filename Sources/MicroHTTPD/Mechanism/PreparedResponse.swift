import CMicroHTTPD

/// A libmicrohttpd response object built once (body copied once into memory it owns,
/// headers attached) and queued for any number of requests; destroyed with the last
/// reference. libmicrohttpd reference-counts responses under its own lock, so queueing
/// one from several threads at once is supported.
///
/// A request that needs one more header (`Preference-Applied` on a held poll's answer)
/// gets a response object of its own over the same body bytes: headers are per object in
/// libmicrohttpd, and the body, 2 MB for a 10,000-route manifest, is never copied again.
package final class PreparedResponse: Sendable {
    /// `struct MHD_Response *`; never mutated after `init`, released in `deinit`.
    nonisolated(unsafe) let response: OpaquePointer
    let body: SharedBody
    let headers: [(String, String)]

    package init?(body: [UInt8], headers: [(String, String)]) {
        let shared = SharedBody(body)
        guard let response = shared.response(headers: headers) else { return nil }
        self.response = response
        self.body = shared
        self.headers = headers
    }

    /// `base` with `extra` headers added, sharing its body bytes.
    package init?(_ base: PreparedResponse, adding extra: [(String, String)]) {
        guard let response = base.response(adding: extra) else { return nil }
        self.response = response
        self.body = base.body
        self.headers = base.headers + extra
    }

    /// A new response object with this one's body and headers plus `extra`; the caller
    /// destroys it after queueing.
    func response(adding extra: [(String, String)]) -> OpaquePointer? {
        body.response(headers: headers + extra)
    }

    /// A one-off response object whose body MHD copies (the array then goes to
    /// `scratch`); the caller destroys it after queueing.
    static func make(_ body: consuming [UInt8], _ headers: [(String, String)], scratch: inout ScratchBuffers) -> OpaquePointer? {
        let response = body.withUnsafeBufferPointer { buffer in
            sb_response_copy(buffer.count, buffer.baseAddress)
        }
        scratch.give(body)
        guard let response else { return nil }
        guard addHeaders(headers, to: response) else {
            MHD_destroy_response(response)
            return nil
        }
        return response
    }

    deinit {
        MHD_destroy_response(response)
    }
}

/// Adds `headers` to a response; false when libmicrohttpd refuses one. Through
/// `withCString`, which copies nothing for a native string (NUL-terminated already) or a
/// small one under 15 bytes (zero-padded in place); passing a String straight to the C
/// parameter would copy a small one to the heap.
///
/// A response with a `Content-Type` also carries `X-Content-Type-Options: nosniff` (unless
/// it names it itself): a browser then never reads JSON holding manifest data as HTML or
/// script, whatever the data looks like.
func addHeaders(_ headers: [(String, String)], to response: OpaquePointer) -> Bool {
    var typed = false, sniffing = true
    for (name, value) in headers {
        let added = name.withCString { name in value.withCString { MHD_add_response_header(response, name, $0) } }
        guard added == .YES else { return false }
        if named(name, "content-type") { typed = true }
        if named(name, "x-content-type-options") { sniffing = false }
    }
    if typed && sniffing {
        guard MHD_add_response_header(response, "X-Content-Type-Options", "nosniff") == .YES else { return false }
    }
    return true
}

/// Whether a header name is `lowercase` (given in lowercase), compared without case and
/// without making a String.
private func named(_ name: String, _ lowercase: StaticString) -> Bool {
    name.utf8.count == lowercase.utf8CodeUnitCount
        && name.utf8.elementsEqual(UnsafeBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)) { $0 | 0x20 == $1 }
}

/// Body bytes at a stable address, shared by every response object made over them.
final class SharedBody: Sendable {
    /// Allocated in `init` (at least one byte), freed in `deinit`, never written after `init`.
    nonisolated(unsafe) let base: UnsafeMutableRawPointer
    let count: Int

    init(_ bytes: [UInt8]) {
        count = bytes.count
        base = .allocate(byteCount: max(1, bytes.count), alignment: 1)
        bytes.withUnsafeBytes { if let source = $0.baseAddress { base.copyMemory(from: source, byteCount: $0.count) } }
    }

    /// A response object over these bytes with `headers`. It keeps the bytes alive: the
    /// `passRetained` here is released by libmicrohttpd's free callback
    /// (`releaseSharedBody`) when it destroys the response.
    func response(headers: [(String, String)]) -> OpaquePointer? {
        let owner = Unmanaged.passRetained(self)
        guard let response = MHD_create_response_from_buffer_with_free_callback_cls(count, base, releaseSharedBody,
                                                                                   owner.toOpaque()) else {
            owner.release()
            return nil
        }
        guard addHeaders(headers, to: response) else {
            MHD_destroy_response(response)
            return nil
        }
        return response
    }

    deinit { base.deallocate() }
}

/// The free callback of responses made by ``SharedBody/response(headers:)``: balances
/// its `passRetained`.
private func releaseSharedBody(_ cls: UnsafeMutableRawPointer?) {
    guard let cls else { return }
    Unmanaged<SharedBody>.fromOpaque(cls).release()
}
