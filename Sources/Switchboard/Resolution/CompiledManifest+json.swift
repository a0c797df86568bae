extension CompiledManifest {
    /// The result as JSON bytes, keys in SPEC order: url, status, reason, route,
    /// destination, params, presentation, fragment, manifest, explain.
    public func resultJSON(_ r: Resolution) -> [UInt8] {
        var w = JSONWriter(capacity: 320 + 2 * r.url.utf8.count + manifestSuffix.count)
        writeResult(r, into: &w)
        return w.bytes
    }

    public func writeResult(_ r: Resolution, into w: inout JSONWriter) {
        w.raw("{\"url\":")
        w.string(r.url)
        w.raw(",\"status\":\"")
        w.raw(Self.name(of: r.status))
        w.byte(UInt8(ascii: "\""))
        if let reason = r.reason {
            w.raw(",\"reason\":")
            w.string(reason)
        }
        if let json = r.routeJSON {
            w.bytes.append(contentsOf: json)
        } else if let route = r.route {
            w.raw(",\"route\":{\"name\":")
            w.string(route.name)
            w.raw(",\"pattern\":")
            w.string(route.pattern)
            w.byte(UInt8(ascii: "}"))
        }
        if let json = r.destinationJSON {
            w.bytes.append(contentsOf: json)
        } else if let destination = r.destination {
            w.raw(",\"destination\":")
            w.string(destination)
        }
        if r.status == .matched || r.status == .fallback {
            w.raw(",\"params\":{")
            for (k, member) in r.params.enumerated() {
                if k > 0 { w.byte(UInt8(ascii: ",")) }
                w.string(member.key)
                w.byte(UInt8(ascii: ":"))
                w.write(member.value)
            }
            w.byte(UInt8(ascii: "}"))
        }
        if let json = r.presentationJSON {
            w.bytes.append(contentsOf: json)
        } else if let presentation = r.presentation {
            w.raw(",\"presentation\":{\"style\":\"")
            w.raw(Self.name(of: presentation.style))
            w.byte(UInt8(ascii: "\""))
            for option in presentation.options {
                w.byte(UInt8(ascii: ","))
                w.string(option.key)
                w.byte(UInt8(ascii: ":"))
                w.write(option.value)
            }
            w.byte(UInt8(ascii: "}"))
        }
        if let fragment = r.fragment, r.status == .matched || r.status == .fallback {
            w.raw(",\"fragment\":")
            w.string(fragment)
        }
        w.bytes.append(contentsOf: manifestSuffix)
        if let e = r.explanation {
            w.raw(",\"explain\":")
            w.write(e.json)
        }
        w.byte(UInt8(ascii: "}"))
    }

    private static func name(of status: Resolution.Status) -> StaticString {
        switch status {
        case .matched: return "matched"
        case .fallback: return "fallback"
        case .external: return "external"
        case .rejected: return "rejected"
        }
    }

    private static func name(of style: Presentation.Style) -> StaticString {
        switch style {
        case .push: return "push"
        case .modal: return "modal"
        case .sheet: return "sheet"
        case .replace: return "replace"
        case .tab: return "tab"
        case .web: return "web"
        case .external: return "external"
        }
    }
}

extension Explanation {
    /// `{"host", "path", "segments", "tried": [{route, pattern, path, outcome, detail}], "note"}`.
    public var json: JSONValue {
        var m: [JSONValue.Member] = []
        if let path {
            m.append(.init("host", host.map { .string($0) } ?? .null))
            m.append(.init("path", .string(path)))
            m.append(.init("segments", .array(segments.map { .string($0) })))
            m.append(.init("tried", .array(steps.map { step in
                var s: [JSONValue.Member] = [.init("route", .string(step.route)), .init("pattern", .string(step.pattern)),
                                             .init("path", .string(step.path)), .init("outcome", .string(step.outcome))]
                if let detail = step.detail { s.append(.init(step.outcome == "refused" ? "reason" : "detail", .string(detail))) }
                return .object(s)
            })))
        }
        if let note { m.append(.init("note", .string(note))) }
        return .object(m)
    }
}
