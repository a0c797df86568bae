/// The manifest as clients consume it (docs/http-api.md `GET /v1/manifest`): validated, with
/// defaults filled in, compact, keys sorted by their UTF-8 bytes at every level; its
/// SHA-256 is the ETag.
///
/// Written straight from the decoded manifest, members in sorted order by
/// construction: building a `JSONValue` tree and sorting every object's keys took a
/// third of a 10,000-route load. Only what the manifest's author wrote freely (param
/// names, inject keys, presentation options, defaults, `features`, `messages`) is
/// sorted as it is written.
extension Manifest {
    package var canonicalBytes: [UInt8] {
        var w = JSONWriter(capacity: 512 + routes.count * 320)
        w.raw("{\"caseSensitive\":")
        w.bool(caseSensitive)
        w.raw(",\"fallback\":{\"destination\":")
        w.string(fallback.destination)
        w.raw(",\"presentation\":")
        fallback.presentation.write(to: &w, sortedKeys: true)
        w.byte(UInt8(ascii: "}"))
        if let features {
            w.raw(",\"features\":")
            w.write(features, sortedKeys: true)
        }
        w.raw(",\"hosts\":")
        w.strings(hosts)
        if let messages {
            w.raw(",\"messages\":")
            w.write(messages, sortedKeys: true)
        }
        w.raw(",\"routes\":[")
        for (i, route) in routes.enumerated() {
            if i > 0 { w.byte(UInt8(ascii: ",")) }
            route.writeCanonical(to: &w)
        }
        w.raw("],\"schemes\":")
        w.strings(schemes)
        if let updatedAt {
            w.raw(",\"updatedAt\":")
            w.string(updatedAt)
        }
        w.raw(",\"version\":")
        w.integer(version)
        w.byte(UInt8(ascii: "}"))
        return w.bytes
    }
}

extension JSONWriter {
    /// An object of one member per item, named by `key`, in canonical (byte) order.
    mutating func sortedObject<Item>(_ items: [Item], key: (Item) -> String, value: (inout JSONWriter, Item) -> Void) {
        byte(UInt8(ascii: "{"))
        for (i, item) in items.sorted(by: { Self.keyOrder(key($0), key($1)) }).enumerated() {
            if i > 0 { byte(UInt8(ascii: ",")) }
            string(key(item))
            byte(UInt8(ascii: ":"))
            value(&self, item)
        }
        byte(UInt8(ascii: "}"))
    }
}

extension Route {
    /// Members in byte order: destination, hosts, inject, name, params, pattern(s),
    /// presentation, priority, redirect, since, universalLink, until, variants.
    package func writeCanonical(to w: inout JSONWriter) {
        w.byte(UInt8(ascii: "{"))
        if let destination, redirect == nil {
            w.raw("\"destination\":")
            w.string(destination)
            w.byte(UInt8(ascii: ","))
        }
        if let hostsAsWritten {
            w.raw("\"hosts\":")
            w.strings(hostsAsWritten)
            w.byte(UInt8(ascii: ","))
        }
        if !inject.isEmpty {
            w.raw("\"inject\":")
            w.sortedObject(inject, key: \.key) { w, entry in
                switch entry.value {
                case .constant(let value): w.write(value, sortedKeys: true)
                case .param(let name):
                    w.raw("{\"param\":")
                    w.string(name)
                    w.byte(UInt8(ascii: "}"))
                }
            }
            w.byte(UInt8(ascii: ","))
        }
        w.raw("\"name\":")
        w.string(name)
        if !params.isEmpty {
            w.raw(",\"params\":")
            w.sortedObject(params, key: \.name) { w, param in param.writeCanonical(to: &w) }
        }
        if patternsAsList {
            w.raw(",\"patterns\":")
            w.strings(patterns.map(\.text))
        } else {
            w.raw(",\"pattern\":")
            w.string(patterns[0].text)
        }
        if redirect == nil {
            w.raw(",\"presentation\":")
            presentation.write(to: &w, sortedKeys: true)
        }
        w.raw(",\"priority\":")
        w.integer(Int64(priority))
        if let redirect {
            w.raw(",\"redirect\":")
            w.string(redirect.text)
        }
        if let sinceText {
            w.raw(",\"since\":")
            w.string(sinceText)
        }
        w.raw(",\"universalLink\":")
        w.bool(universalLink)
        if let untilText {
            w.raw(",\"until\":")
            w.string(untilText)
        }
        if !variants.isEmpty {
            w.raw(",\"variants\":[")
            for (i, variant) in variants.enumerated() {
                if i > 0 { w.byte(UInt8(ascii: ",")) }
                variant.writeCanonical(to: &w)
            }
            w.byte(UInt8(ascii: "]"))
        }
        w.byte(UInt8(ascii: "}"))
    }
}

extension ParamDeclaration {
    /// Members in byte order: default, pattern (regex), required, type, values (enum).
    package func writeCanonical(to w: inout JSONWriter) {
        w.byte(UInt8(ascii: "{"))
        if let defaultValue {
            w.raw("\"default\":")
            w.write(defaultValue, sortedKeys: true)
            w.byte(UInt8(ascii: ","))
        }
        if case .regex(let r) = type {
            w.raw("\"pattern\":")
            w.string(r.pattern)
            w.byte(UInt8(ascii: ","))
        }
        w.raw("\"required\":")
        w.bool(required)
        w.raw(",\"type\":")
        w.string(type.name)
        if case .enumeration(let values) = type {
            w.raw(",\"values\":")
            w.strings(values)
        }
        w.byte(UInt8(ascii: "}"))
    }
}

extension Variant {
    /// Members in byte order: destination, presentation, when (appVersion, idiom, platform).
    package func writeCanonical(to w: inout JSONWriter) {
        w.byte(UInt8(ascii: "{"))
        if let destination {
            w.raw("\"destination\":")
            w.string(destination)
            w.byte(UInt8(ascii: ","))
        }
        if let presentation {
            w.raw("\"presentation\":")
            presentation.write(to: &w, sortedKeys: true)
            w.byte(UInt8(ascii: ","))
        }
        w.raw("\"when\":{")
        var first = true
        func key(_ name: StaticString) {
            if !first { w.byte(UInt8(ascii: ",")) }
            first = false
            w.raw(name)
        }
        if let appVersion {
            key("\"appVersion\":")
            w.string(appVersion.description)
        }
        if let idioms {
            key("\"idiom\":")
            w.strings(idioms)
        }
        if let platforms {
            key("\"platform\":")
            w.strings(platforms)
        }
        w.raw("}}")
    }
}
