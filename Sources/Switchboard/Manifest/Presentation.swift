/// How the app shows a destination: a style plus keys passed through to clients
/// (`modalStyle`, `animated`, `tab`, ...), in the order written.
public struct Presentation: Sendable, Equatable {
    public enum Style: String, Sendable, CaseIterable {
        case push, modal, sheet, replace, tab, web, external
    }

    public var style: Style
    /// Other keys, `tab` among them, as written.
    public var options: [JSONValue.Member]

    public init(style: Style, options: [JSONValue.Member] = []) {
        self.style = style
        self.options = options
    }

    package static let push = Presentation(style: .push)
    package static let web = Presentation(style: .web)
    package static let external = Presentation(style: .external)

    /// The presentation as a JSON object, `style` first.
    package var json: JSONValue {
        .object([JSONValue.Member("style", .string(style.rawValue))] + options)
    }

    /// Writes ``json`` (keys sorted for the canonical manifest) without building it.
    func write(to w: inout JSONWriter, sortedKeys: Bool = false) {
        if sortedKeys && !options.isEmpty { return w.write(json, sortedKeys: true) }
        // An option named like an array index goes before `style`, as in a JavaScript object.
        if !sortedKeys, options.contains(where: { JSONWriter.isArrayIndex($0.key) }) { return w.write(json) }
        w.raw("{\"style\":")
        w.string(style.rawValue)
        for option in options {
            w.byte(UInt8(ascii: ","))
            w.string(option.key)
            w.byte(UInt8(ascii: ":"))
            w.write(option.value)
        }
        w.byte(UInt8(ascii: "}"))
    }
}
