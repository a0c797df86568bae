import RouteMatching

extension ManifestDecoder {
    static let paramKeys = ["type", "values", "pattern", "required", "default", "description"]

    /// `boundByEveryExpansion`: the params in the path of every expansion of every
    /// pattern (outside optional groups, in every alias): `required` by default. Anywhere
    /// else a param is a query param in some expansion, optional by default (docs/manifest.md:
    /// `required` defaults are decided per pattern and per expansion).
    mutating func decodeParams(_ value: JSONValue?, _ pointer: @autoclosure () -> JSONPointer, boundByEveryExpansion: [String]) -> [ParamDeclaration] {
        var declared: [ParamDeclaration] = []
        if let value {
            if let members = value.objectMembers {
                for member in Self.inKeyOrder(members) {
                    if let d = decodeParam(member.key, member.value, pointer().appending(member.key),
                                           requiredByDefault: boundByEveryExpansion.contains(member.key)) {
                        declared.append(d)
                    }
                }
            } else {
                error(.typeMismatch, pointer(), "\"params\" must be an object of param names to declarations")
            }
        }
        return declared
    }

    private mutating func decodeParam(_ name: String, _ value: JSONValue, _ pointer: @autoclosure () -> JSONPointer, requiredByDefault: Bool) -> ParamDeclaration? {
        guard let members = value.objectMembers else {
            error(.typeMismatch, pointer(), "a param declaration is an object such as {\"type\": \"int\"}")
            return nil
        }
        checkKeys(members, pointer(), known: Self.paramKeys)
        var type = ParamType.string
        switch value["type"] {
        case nil, .string("string")?: break
        case .string("int")?: type = .int
        case .string("uuid")?: type = .uuid
        case .string("slug")?: type = .slug
        case .string("enum")?:
            guard let items = value["values"]?.arrayValue, !items.isEmpty,
                  let values = Optional(items.compactMap(\.stringValue)), values.count == items.count else {
                error(.invalidParam, pointer().appending("values"), "an enum param needs \"values\": a non-empty array of strings")
                return nil
            }
            type = .enumeration(values)
        case .string("regex")?:
            guard let source = value["pattern"]?.stringValue, !source.isEmpty else {
                error(.invalidParam, pointer().appending("pattern"), "a regex param needs \"pattern\": the regex the whole value must match")
                return nil
            }
            do {
                type = .regex(try SafeRegex(source))
            } catch {
                let code: DiagnosticCode
                switch error {
                case .unsafe, .tooLarge: code = .unsafeRegex
                case .unsupported: code = .unsafeRegex
                case .syntax: code = .invalidRegex
                }
                self.error(code, pointer().appending("pattern"), "\"\(source)\": \(error)")
                return nil
            }
        case let other?:
            error(.unknownType, pointer().appending("type"), "unknown param type \(Self.show(other)); use string, int, uuid, slug, enum or regex")
            return nil
        }
        if value["values"] != nil, case .enumeration = type {} else if value["values"] != nil {
            warning(.unknownField, pointer().appending("values"), "\"values\" applies to enum params only")
        }
        let required = bool(value["required"], pointer().appending("required")) ?? requiredByDefault
        let defaultValue = value["default"]?.sortingKeys()
        if let defaultValue, !Self.defaultFits(defaultValue, type) {
            error(.invalidDefault, pointer().appending("default"), "default \(Self.show(defaultValue)) is not a valid \(type)")
        }
        return ParamDeclaration(name: name, type: type, required: required, defaultValue: defaultValue)
    }

    private static func defaultFits(_ value: JSONValue, _ type: ParamType) -> Bool {
        switch (value, type) {
        case (.integer(let i), .int): return abs(i) <= ParamType.maxSafeInteger
        case (.string(let s), .int): return ParamType.intValue(s) != nil
        case (.string(let s), _): return type.accepts(s)
        case (_, .string): return true
        default: return false
        }
    }
}
