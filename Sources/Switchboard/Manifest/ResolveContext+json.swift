extension ResolveContext {
    /// `{"platform": "ios", "appVersion": "7.1.0"}`, keys only for what is set: the
    /// context object of `POST /v1/resolve` and of reports.
    package var json: JSONValue {
        var members: [JSONValue.Member] = []
        if let platform { members.append(.init("platform", .string(platform))) }
        if let idiom { members.append(.init("idiom", .string(idiom))) }
        if let appVersion { members.append(.init("appVersion", .string(appVersion.description))) }
        return .object(members)
    }
}
