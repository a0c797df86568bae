import CMicroHTTPD

/// The client a trusted proxy forwarded the request for (``TrustedProxies/client(peer:forwarded:xForwardedFor:)``),
/// from its `Forwarded` and `X-Forwarded-For` lines, each header's joined by commas as
/// RFC 9110 5.3 reads several lines of one field. More lines than any chain of proxies
/// sends are not believed: the peer is then the client.
func forwardedClient(_ trusted: TrustedProxies, peer: IPAddress, _ connection: OpaquePointer) -> IPAddress {
    let capacity = 16
    return withUnsafeTemporaryAllocation(of: UnsafePointer<CChar>?.self, capacity: capacity) { values in
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { kinds in
            let count = Int(sb_forwarded_headers(connection, values.baseAddress, kinds.baseAddress, UInt32(capacity)))
            if count == 0 { return trusted.client(peer: peer, forwarded: nil, xForwardedFor: nil) }
            guard count <= capacity else { return peer }
            var forwarded: [UInt8]? = nil, xForwardedFor: [UInt8]? = nil
            for k in 0..<count {
                guard let value = values[k] else { continue }
                let bytes = UnsafeRawBufferPointer(start: value, count: strlen(value))
                if kinds[k] == 1 { appendLine(bytes, to: &forwarded) } else { appendLine(bytes, to: &xForwardedFor) }
            }
            return trusted.client(peer: peer, forwarded: forwarded?[...], xForwardedFor: xForwardedFor?[...])
        }
    }
}

private func appendLine(_ line: UnsafeRawBufferPointer, to field: inout [UInt8]?) {
    if field == nil { field = [] } else { field!.append(UInt8(ascii: ",")) }
    field!.append(contentsOf: line)
}
