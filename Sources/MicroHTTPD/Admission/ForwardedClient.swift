import CMicroHTTPD

/// The client a trusted proxy forwarded the request for (``TrustedProxies/forwardedClient(_:)``),
/// from the lines of the one header it writes, joined by commas as RFC 9110 5.3 reads
/// several lines of one field; nil when they name none. More lines than any chain of
/// proxies sends are not believed.
func forwardedClient(_ trusted: TrustedProxies, _ connection: OpaquePointer) -> IPAddress? {
    let capacity = 16
    return withUnsafeTemporaryAllocation(of: UnsafePointer<CChar>?.self, capacity: capacity) { values in
        let which: UInt8 = trusted.header == .forwarded ? 1 : 2
        let count = Int(sb_forwarded_headers(connection, which, values.baseAddress, UInt32(capacity)))
        guard count > 0, count <= capacity else { return nil }
        var field: [UInt8] = []
        for k in 0..<count {
            guard let value = values[k] else { continue }
            if k > 0 { field.append(UInt8(ascii: ",")) }
            field.append(contentsOf: UnsafeRawBufferPointer(start: value, count: strlen(value)))
        }
        return trusted.forwardedClient(field[...])
    }
}
