import Switchboard
import RouteMatching

/// URLs that exercise a manifest's routes, generated from its patterns: for every
/// expansion of every pattern, values that fit each param's type and values that do
/// not, with and without each declared query param, a wildcard with zero and two
/// segments, on each of the route's hosts, a host it does not list and each app scheme.
/// `switchboard cases` writes the first URL of each expansion; `switchboard diff`
/// resolves all of them against both manifests.
///
/// ```swift
/// for item in URLCorpus(manifest).items { print(item.url, item.shape) }
/// ```
package struct URLCorpus: Sendable {
    /// One generated URL.
    package struct Item: Sendable, Equatable {
        package let url: String
        /// What the URL stands for, independent of the sample values: the route, the
        /// expansion and the variation (`artist /artist/:id id:fails`), used in
        /// fingerprints so that they survive a change of sample values.
        package let shape: String
        /// The route and the expansion alone (`artist /artist/:id`): the shape every
        /// variation of the expansion's URLs shares, on every host and scheme.
        package let pattern: String
        /// The route (its index in the manifest) the URL was made from.
        package let route: Int
        /// Whether it is the expansion's plain URL (typed values that fit, required query
        /// params, path only), the one `cases` pins.
        package let isBase: Bool
    }

    /// A host no manifest lists, for "a host the route does not list".
    package static let unlistedHost = "unlisted.example"

    package let items: [Item]

    package init(_ manifest: Manifest) {
        var items: [Item] = []
        for route in manifest.routes {
            for pattern in route.patterns {
                for expansion in pattern.expansions {
                    Self.generate(route, expansion, manifest, into: &items)
                }
            }
        }
        self.items = items
    }

    private static func generate(_ route: Route, _ expansion: [PatternSegment], _ manifest: Manifest, into items: inout [Item]) {
        let text = "/" + expansion.map(\.description).joined(separator: "/")
        let shapePrefix = "\(route.name) \(text)"
        let pathParams = Set(expansion.compactMap(\.paramName))
        let queryParams = route.params.filter { !pathParams.contains($0.name) }
        let required = queryParams.filter { $0.required && $0.defaultValue == nil }
        func samples(_ name: String) -> SampleValues { SampleValues(route.declaration(name)?.type ?? .string) }

        // A route restricted to hosts is reached on its first host; others by path alone.
        let origin = route.hostsAsWritten?.first.map { "https://\($0)" } ?? ""
        /// The URL up to the query, each param's value from `values` (the first fitting
        /// sample otherwise).
        func path(_ values: [String: [String]]) -> String? {
            var out = ""
            for segment in expansion {
                switch segment {
                case .literal(let literal): out += "/" + encode(literal)
                case .param(let name):
                    guard let value = values[name]?.first ?? samples(name).fits.first, !value.isEmpty else { return nil }
                    out += "/" + encode(value)
                case .wildcard(let name):
                    let value = values[name] ?? Array(repeating: samples(name).fits.first ?? "sample", count: 2)
                    for part in value { out += "/" + encode(part) }
                }
            }
            return origin + (out.isEmpty ? "/" : out)
        }
        func query(_ pairs: [(String, String)]) -> String {
            pairs.isEmpty ? "" : "?" + pairs.map { "\(formEncode($0.0))=\(formEncode($0.1))" }.joined(separator: "&")
        }
        let requiredPairs = required.compactMap { d in SampleValues(d.type).fits.first.map { (d.name, $0) } }
        func add(_ path: String?, _ pairs: [(String, String)], _ variation: String, base: Bool = false) {
            guard let path else { return }
            let shape = variation.isEmpty ? shapePrefix : "\(shapePrefix) \(variation)"
            items.append(Item(url: path + query(pairs), shape: shape, pattern: shapePrefix, route: route.index, isBase: base))
        }

        // The expansion's plain URL, then the same on each host and scheme.
        guard let basePath = path([:]) else { return }
        add(basePath, requiredPairs, "", base: true)
        let bare = String(basePath.dropFirst(origin.count))
        let hosts = route.hostsAsWritten.map { Array($0.dropFirst()) } ?? manifest.hosts
        for host in hosts.prefix(8) { add("https://\(host)\(bare)", requiredPairs, "on \(host)") }
        let unlisted = route.hostsAsWritten.flatMap { own in manifest.hosts.first { !own.contains($0) } }
        for host in [unlisted, Self.unlistedHost].compactMap({ $0 }) {
            add("https://\(host)\(bare)", requiredPairs, "on unlisted \(host)")
        }
        for scheme in manifest.schemes.prefix(3) {
            add("\(scheme)://\(bare.dropFirst())", requiredPairs, "on \(scheme):")
        }
        // Path params: every other accepted value, then one refused.
        for segment in expansion {
            switch segment {
            case .param(let name):
                let values = samples(name)
                for value in values.fits.dropFirst() { add(path([name: [value]]), requiredPairs, "\(name)=\(value)") }
                if let fails = values.fails { add(path([name: [fails]]), requiredPairs, "\(name) refused") }
            case .wildcard(let name):
                add(path([name: []]), requiredPairs, "\(name) empty")
            case .literal:
                break
            }
        }
        // Query params: each optional one given, each refused, each required one left out.
        for declaration in queryParams {
            let values = SampleValues(declaration.type)
            let others = requiredPairs.filter { $0.0 != declaration.name }
            if let fit = values.fits.first, !required.contains(where: { $0.name == declaration.name }) {
                add(basePath, others + [(declaration.name, fit)], "?\(declaration.name)")
            }
            if let fails = values.fails { add(basePath, others + [(declaration.name, fails)], "?\(declaration.name) refused") }
            if required.contains(where: { $0.name == declaration.name }) { add(basePath, others, "without ?\(declaration.name)") }
        }
    }

    /// Percent-encodes what a path segment cannot hold as is.
    static func encode(_ text: String) -> String { percentEncode(text, keeping: "-._~!$&'()*+,;=:@") }

    /// Percent-encodes a query key or value (`+` and `&` included).
    static func formEncode(_ text: String) -> String { percentEncode(text, keeping: "-._~!$'()*,;:@/") }

    private static func percentEncode(_ text: String, keeping safe: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for b in text.utf8 {
            if URLScope.isAlpha(b) || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || safe.utf8.contains(b) {
                out.append(b)
            } else {
                out += [UInt8(ascii: "%"), hex[Int(b >> 4)], hex[Int(b & 15)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
