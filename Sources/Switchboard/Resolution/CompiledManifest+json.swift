extension CompiledManifest {
    /// The result as JSON bytes, keys in the contract's order: url, status, reason, route,
    /// destination, params, presentation, fragment, manifest, explain. Written into
    /// `buffer` (emptied) when given one: a server reuses a connection's.
    public func resultJSON(_ r: Resolution, into buffer: consuming [UInt8] = []) -> [UInt8] {
        var w = JSONWriter(capacity: 320 + 2 * r.urlBytes.count + manifestSuffix.count, buffer: buffer)
        writeResult(r, into: &w)
        return w.bytes
    }

    package func writeResult(_ r: Resolution, into w: inout JSONWriter) {
        w.raw("{\"url\":")
        if r.status == .rejected {
            // The only status whose URL may not be UTF-8 (docs/manifest.md), and the only one with a
            // reason; its target writes nothing.
            w.string(r.url)
            w.raw(",\"status\":\"rejected\"")
            if let reason = r.reason {
                w.raw(",\"reason\":")
                w.string(reason)
            }
        } else {
            w.string(validUTF8: r.urlBytes, plain: r.urlIsPlain)
        }
        // status, route, destination, the params' braces and presentation come serialized
        // from the manifest (a target is only ever given results of its status): matched
        // and fallback results have params, others none.
        w.append(r.target.head.span)
        if r.matched != nil {
            // Not bound with `if let`, which copied them twice over.
            r.matched?.write(url: r.urlBytes, into: &w)
        } else if r.status == .fallback {
            w.raw("\"url\":")
            w.string(validUTF8: r.urlBytes, plain: r.urlIsPlain)
        }
        w.append(r.target.tail.span)
        if let fragment = r.fragmentBytes, r.status == .matched || r.status == .fallback {
            w.raw(",\"fragment\":")
            w.string(validUTF8: fragment)
        }
        manifestSuffix.withSpan { w.append($0) }
        if let e = r.explanation {
            w.raw(",\"explain\":")
            w.write(e.json)
        }
        w.byte(UInt8(ascii: "}"))
    }
}

extension Explanation {
    /// `{"host", "path", "segments", "tried": [{route, pattern, expansion, path, outcome, reason|detail}], "note", "near"}`.
    package var json: JSONValue {
        var m: [JSONValue.Member] = []
        if let path {
            m.append(.init("host", host.map { .string($0) } ?? .null))
            m.append(.init("path", .string(path)))
            m.append(.init("segments", .array(segments.map { .string($0) })))
            m.append(.init("tried", .array(steps.map { step in
                var s: [JSONValue.Member] = [.init("route", .string(step.route)), .init("pattern", .string(step.pattern)),
                                             .init("expansion", .string(step.expansion)), .init("path", .string(step.path)), .init("outcome", .string(step.outcome))]
                if let detail = step.detail { s.append(.init(step.outcome == "refused" ? "reason" : "detail", .string(detail))) }
                return .object(s)
            })))
        }
        if let note { m.append(.init("note", .string(note))) }
        if let near {
            m.append(.init("near", .array(near.map { miss in
                .object([.init("route", .string(miss.route)), .init("pattern", .string(miss.pattern)), .init("path", .string(miss.path)),
                         .init("reason", .string(miss.reason)), .init("distance", .integer(Int64(miss.distance)))])
            })))
        }
        return .object(m)
    }
}
