import Switchboard
/// A difference between two manifests as declared: a route added, removed or renamed,
/// a field of a route, or a top-level field. Compared as decoded, defaults filled in,
/// so a file and the canonical manifest a server serves of it do not differ.
package struct DeclarationChange: Sendable, Equatable {
    package enum Kind: String, Sendable {
        case added, removed, renamed, changed
    }

    package let kind: Kind
    /// The route's name (the old one when renamed); nil for a top-level field.
    package let route: String?
    /// The new name, when renamed.
    package let newName: String?
    /// The field that changed, dotted into objects: `params.id.type`, `hosts`.
    package let field: String?
    package let old: JSONValue?
    package let new: JSONValue?
    /// The route's index in the old and the new manifest, where it has one.
    package let oldIndex: Int?
    package let newIndex: Int?

    /// Breaking as declared: a route's http(s) URLs stop opening the app.
    package var isBreaking: Bool {
        field == "universalLink" && old == .bool(true) && new == .bool(false)
    }

    /// `route "artist" params.id.type: "string" -> "int"`, `route "show" removed`.
    package var description: String {
        let subject = route.map { "route \"\($0)\"" }
        func show(_ v: JSONValue?) -> String { v.map { String(decoding: $0.serialized(), as: UTF8.self) } ?? "(none)" }
        switch kind {
        case .added: return "\(subject ?? "?") added" + (new.map { " " + show($0) } ?? "")
        case .removed: return "\(subject ?? "?") removed"
        case .renamed: return "\(subject ?? "?") renamed to \"\(newName ?? "?")\""
        case .changed:
            let place = [subject, field].compactMap { $0 }.joined(separator: " ")
            return "\(place): \(show(old)) -> \(show(new))"
        }
    }
}
