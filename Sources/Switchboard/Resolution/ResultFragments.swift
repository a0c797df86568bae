/// The parts of a result that depend only on the route, serialized once per manifest:
/// `,"route":{...}` per pattern, `,"destination":...` and `,"presentation":{...}` per
/// route and per variant, and the fallback's. Writing a result copies these bytes.
struct ResultFragments: Sendable {
    /// `[route][pattern]`.
    let route: [[[UInt8]]]
    /// `[route][0]` for the route itself, `[route][1 + k]` for its variant `k`.
    let destination: [[[UInt8]?]]
    let presentation: [[[UInt8]]]
    let fallbackDestination: [UInt8]
    let fallbackPresentation: [UInt8]
    static let externalPresentation = ResultFragments.presentation(.external)

    init(_ manifest: Manifest) {
        route = manifest.routes.map { r in
            r.patterns.map { pattern in
                var w = JSONWriter(capacity: 64)
                w.raw(",\"route\":{\"name\":")
                w.string(r.name)
                w.raw(",\"pattern\":")
                w.string(pattern.text)
                w.byte(UInt8(ascii: "}"))
                return w.bytes
            }
        }
        destination = manifest.routes.map { r in
            [r.destination.map(Self.destination)] + r.variants.map { ($0.destination ?? r.destination).map(Self.destination) }
        }
        presentation = manifest.routes.map { r in
            [Self.presentation(r.presentation)] + r.variants.map { Self.presentation($0.presentation ?? r.presentation) }
        }
        fallbackDestination = Self.destination(manifest.fallback.destination)
        fallbackPresentation = Self.presentation(manifest.fallback.presentation)
    }

    static func destination(_ name: String) -> [UInt8] {
        var w = JSONWriter(capacity: 32)
        w.raw(",\"destination\":")
        w.string(name)
        return w.bytes
    }

    static func presentation(_ p: Presentation) -> [UInt8] {
        var w = JSONWriter(capacity: 48)
        w.raw(",\"presentation\":")
        w.write(p.json)
        return w.bytes
    }
}
