import Switchboard
import RouteMatching

/// A manifest made from an Eigen-style routes document, as Artsy's Echo served it:
/// `{"id", "name", "created_at", "updated_at", "features": [{"name","value"}],
/// "messages": [{"name","content"}], "routes": [{"name","path"}]}`.
///
/// Each route with a path becomes a route named after it whose destination is its name;
/// an entry whose path is a bare host (`live.artsy.net`) goes to `hosts`. Echo's clients
/// took the first route in file order that matched; Switchboard ranks by specificity. So
/// routes sharing a shape get priorities in file order (the first wins, as in Echo), a
/// route that Echo itself never reached is left out, and every pair for which the two
/// orders pick differently for some URL is reported with an example.
///
/// ```swift
/// let imported = try EchoImport(json: bytes, options: .init(schemes: ["artsy"]))
/// print(imported.manifestText)
/// imported.notes.forEach { print($0) }
/// ```
package struct EchoImport: Sendable {
    package struct Options: Sendable {
        package var hosts: [String]
        package var schemes: [String]
        package var version: Int64?

        package init(hosts: [String] = [], schemes: [String] = [], version: Int64? = nil) {
            self.hosts = hosts
            self.schemes = schemes
            self.version = version
        }
    }

    /// Why a document could not be imported.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package let pointer: String
        package let message: String
        package var description: String { "\(pointer.isEmpty ? "/" : pointer): \(message)" }
    }

    /// The manifest, one route a line, ready to write to a file.
    package let manifestText: String
    /// What a person porting the table should know: dropped entries, priorities set,
    /// URLs the two orders send to different routes.
    package let notes: [String]

    package init(json bytes: [UInt8], options: Options = Options()) throws(Failure) {
        let document: JSONValue
        do {
            document = try JSONParser.parse(bytes)
        } catch {
            throw Failure(pointer: "", message: "not JSON: \(error)")
        }
        guard document.objectMembers != nil, let entries = document["routes"]?.arrayValue else {
            throw Failure(pointer: "/routes", message: "an Echo document is an object with \"routes\": [{\"name\", \"path\"}]")
        }
        var notes: [String] = []
        var hosts: [String] = []
        var routes: [(name: String, path: String)] = []
        for (i, entry) in entries.enumerated() {
            guard let name = entry["name"]?.stringValue, !name.isEmpty, let path = entry["path"]?.stringValue else {
                throw Failure(pointer: "/routes/\(i)", message: "a route is {\"name\": string, \"path\": string}")
            }
            if path.hasPrefix("/") {
                if routes.contains(where: { $0.name == name }) {
                    notes.append("/routes/\(i): \(name) is a second route of that name; Echo's clients kept the first: left out")
                } else {
                    routes.append((name, path))
                }
            } else if !path.isEmpty, !path.contains("/"), case .success = HostName.key(listed: path) {
                if !hosts.contains(path) { hosts.append(path) }
            } else {
                notes.append("/routes/\(i): \(name) has path \"\(path)\", neither a path nor a host: left out")
            }
        }
        for host in options.hosts where !hosts.contains(host) { hosts.append(host) }
        var version = options.version ?? 1
        if options.version == nil, case .integer(let id)? = document["id"], id >= 1 { version = id }

        var header: [JSONValue.Member] = [.init("version", .integer(version))]
        if let updated = document["updated_at"]?.stringValue, RFC3339.epochSeconds(updated) != nil {
            header.append(.init("updatedAt", .string(updated)))
        }
        header.append(.init("hosts", .array(hosts.map { .string($0) })))
        header.append(.init("schemes", .array(options.schemes.map { .string($0) })))
        for key in ["features", "messages"] {
            if let value = document[key] { header.append(.init(key, value)) }
        }
        let plan = try Self.plan(routes, header: header, notes: &notes)
        self.manifestText = plan.text
        self.notes = notes + Self.orderConflicts(plan.kept, plan.compiled)
    }

    /// The manifest with priorities in file order among routes that share a shape, less
    /// the routes Echo never reached either (each a `never-wins` until none is left).
    private static func plan(_ routes: [(name: String, path: String)], header: [JSONValue.Member], notes: inout [String])
        throws(Failure) -> (text: String, kept: [(name: String, path: String)], compiled: CompiledManifest) {
        var kept = routes
        while true {
            let shapes = kept.map { route in
                Set(((try? RoutePattern(parsing: route.path))?.expansions ?? []).map(Self.shape))
            }
            var members: [JSONValue] = []
            for (i, route) in kept.enumerated() {
                var fields: [JSONValue.Member] = [.init("name", .string(route.name)), .init("pattern", .string(route.path)),
                                                 .init("destination", .string(route.name))]
                let shared = kept.indices.contains { $0 != i && !shapes[$0].isDisjoint(with: shapes[i]) }
                if shared { fields.append(.init("priority", .integer(Int64(kept.count - i)))) }
                members.append(.object(fields))
            }
            var text = "{\n"
            for member in header {
                text += "  " + String(decoding: JSONValue.string(member.key).serialized(), as: UTF8.self) + ": "
                    + String(decoding: member.value.serialized(), as: UTF8.self) + ",\n"
            }
            text += "  \"routes\": [\n" + members.map { "    " + String(decoding: $0.serialized(), as: UTF8.self) }
                .joined(separator: ",\n") + "\n  ]\n}\n"
            do {
                let compiled = try CompiledManifest(json: Array(text.utf8))
                for (i, route) in kept.enumerated() where kept.indices.contains(where: { $0 != i && !shapes[$0].isDisjoint(with: shapes[i]) }) {
                    notes.append("\(route.name) (\(route.path)) shares a shape with another route: \"priority\": \(kept.count - i) keeps Echo's file order")
                }
                return (text, kept, compiled)
            } catch {
                let dead = error.diagnostics.filter { $0.code == "never-wins" }
                let indices = dead.compactMap { Int($0.pointer.split(separator: "/").dropFirst().first ?? "") }
                guard !indices.isEmpty, dead.count == error.diagnostics.filter({ $0.severity == .error }).count else {
                    throw Failure(pointer: error.diagnostics.first?.pointer ?? "",
                                  message: "the imported routes do not make a valid manifest: \(error.diagnostics.map(\.description).joined(separator: "; "))")
                }
                for (diagnostic, index) in zip(dead, indices) {
                    notes.append("\(kept[index].name): never reached in Echo either: \(diagnostic.message); left out")
                }
                for index in Set(indices).sorted(by: >) { kept.remove(at: index) }
            }
        }
    }

    /// A pattern expansion's shape: literals (lowercased) and `:` for any param.
    private static func shape(_ expansion: [PatternSegment]) -> String {
        expansion.map { segment in
            switch segment {
            case .literal(let text): return text.lowercased()
            case .param: return ":"
            case .wildcard: return "*"
            }
        }.joined(separator: "/")
    }

    /// For each pair of routes some URL matches both of, a URL built from the two
    /// patterns; reported when Echo (first in file order) and Switchboard pick differently.
    private static func orderConflicts(_ routes: [(name: String, path: String)], _ compiled: CompiledManifest) -> [String] {
        let expansions = routes.map { ((try? RoutePattern(parsing: $0.path))?.expansions ?? []) }
        var notes: [String] = []
        var reported = Set<String>()
        for i in routes.indices {
            for j in routes.indices where j > i {
                for a in expansions[i] {
                    for b in expansions[j] {
                        guard let url = example(a, b) else { continue }
                        let echo = routes.indices.first { k in expansions[k].contains { matches($0, url) } }
                        let ours = compiled.resolve(url).route?.name
                        guard let echo, routes[echo].name != ours, let ours,
                              reported.insert(routes[echo].name + "\u{0}" + ours).inserted else { continue }
                        notes.append("\(url): Echo's order gave \(routes[echo].name) (\(routes[echo].path)), Switchboard gives \(ours) "
                            + "(more specific); to keep Echo's answer add {\"name\": \"\(routes[echo].name)-\(url.dropFirst().replacingOccurrences(of: "/", with: "-"))\", "
                            + "\"pattern\": \"\(url)\", \"destination\": \"\(routes[echo].name)\"}, or give the routes one shape and "
                            + "\"priority\" to order them (priority only orders routes of one shape)")
                    }
                }
            }
        }
        return notes
    }

    /// A path both expansions match, or nil: literals must agree, a param takes the
    /// other's literal or a sample value. Wildcards are left out of the comparison.
    private static func example(_ a: [PatternSegment], _ b: [PatternSegment]) -> String? {
        guard a.count == b.count else { return nil }
        var segments: [String] = []
        for (x, y) in zip(a, b) {
            switch (x, y) {
            case (.literal(let p), .literal(let q)): guard p.lowercased() == q.lowercased() else { return nil }; segments.append(p)
            case (.literal(let p), .param), (.param, .literal(let p)): segments.append(p)
            case (.param, .param): segments.append("x")
            default: return nil
            }
        }
        return "/" + segments.joined(separator: "/")
    }

    /// Whether Echo's client would match `url` (a plain path) with `expansion`.
    private static func matches(_ expansion: [PatternSegment], _ url: String) -> Bool {
        let parts = url.split(separator: "/")
        guard parts.count == expansion.count else { return false }
        return zip(expansion, parts).allSatisfy { segment, part in
            if case .literal(let text) = segment { return text.lowercased() == part.lowercased() }
            return true
        }
    }
}
