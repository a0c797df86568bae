import RouteMatching

/// A manifest ready to serve: decoded, validated, compiled into tries, with its
/// canonical bytes and ETag. Immutable and `Sendable`: one is shared by every request
/// and replaced whole on reload.
///
/// ```swift
/// let routes = try CompiledManifest(json: bytes)
/// let result = routes.resolve("https://artsy.net/artwork/soup")
/// print(String(decoding: routes.resultJSON(result), as: UTF8.self))
/// ```
public final class CompiledManifest: Sendable {
    public let manifest: Manifest
    package let scope: URLScope
    /// Routes that apply to every host.
    let general: RouteTrie
    /// Routes restricted to a host, tried before `general` for URLs on that host.
    let byHost: [String: RouteTrie]
    /// `byHost` as a list when it has few hosts (at most eight; else empty): a URL's host
    /// compared with each costs less than hashing it once, and most
    /// manifests restrict routes to a host or two.
    private let fewHosts: [String]
    /// The tries of `fewHosts`, at the same indices.
    private let fewHostTries: [RouteTrie]
    /// Canonical compact JSON (sorted keys): the body of `GET /v1/manifest`.
    package let canonicalBytes: [UInt8]
    /// `"sha256-<64 hex>"`, quotes included, as sent in `ETag`.
    public let etag: String
    /// `,"manifest":{"version":N,"etag":"…"}`: the same tail on every result.
    let manifestSuffix: [UInt8]
    /// What results send the app to, per route, pattern and variant.
    let targets: ResultTargets
    /// Per route, whether it can refuse a candidate whose types matched (`since`,
    /// `until`, query params it checks): most cannot, and a match on one of those takes
    /// the candidate without a look at the route.
    let refusable: [Bool]
    /// Problems that do not stop the manifest from serving (unknown fields, ...).
    public let warnings: [ManifestDiagnostic]

    /// Where each route object starts in the file it was loaded from (empty when it was
    /// built from a document), for annotations on a route.
    package let routePositions: [SourcePosition]

    /// Loads a manifest from JSON bytes, reporting every problem found, each with the
    /// line and column of its pointer.
    public convenience init(json bytes: [UInt8]) throws(ManifestError) {
        let document: JSONValue
        let map: SourceMap
        do {
            (document, map) = try JSONParser.parseWithSourceMap(bytes)
        } catch {
            throw ManifestError(diagnostics: [ManifestDiagnostic(code: .invalidJson, pointer: "", message: error.description,
                                                                 position: SourceMap.position(ofByte: error.offset, in: bytes))])
        }
        try self.init(document: document, sourceMap: map)
    }

    /// Loads a manifest from a parsed document (its diagnostics without line and column).
    package convenience init(document: JSONValue) throws(ManifestError) {
        try self.init(document: document, sourceMap: nil)
    }

    /// Loads a manifest from a parsed document; with the document's `sourceMap`,
    /// diagnostics carry their line and column.
    package init(document: JSONValue, sourceMap: SourceMap?) throws(ManifestError) {
        var decoder = ManifestDecoder()
        let decoded = decoder.decode(document)
        var diagnostics = decoder.diagnostics
        guard let manifest = decoded else { throw ManifestError(diagnostics: ManifestDiagnostic.listed(diagnostics)) }
        // The structural checks run even after decoding problems, on the routes that
        // decoded, so that one run reports every problem. What serving needs besides the
        // tries (canonical bytes, ETag, result targets, where routes are in the file) is
        // built at the same time, on a second core: a third of a load.
        let hostKeys = decoder.hostKeys
        let ((general, byHost, checked), served) = concurrently({
            let (general, byHost) = Self.compile(manifest)
            var validator = ManifestValidator(manifest: manifest, general: general, byHost: byHost, hostKeys: hostKeys)
            return (general, byHost, (validator.validate(), validator.unlisted))
        }, {
            Served(manifest, routePositions: sourceMap?.positions(ofItemsOf: "/routes", in: document) ?? [])
        })
        diagnostics += checked.0
        diagnostics.sort { Self.pointerOrder($0.pointer, $1.pointer) }
        diagnostics = ManifestDiagnostic.listed(diagnostics, unlisted: checked.1)
        if let sourceMap {
            for (i, position) in sourceMap.positions(of: diagnostics.map(\.pointer), in: document).enumerated() {
                diagnostics[i].position = position
            }
        }
        guard !diagnostics.contains(where: { $0.severity == .error }) else { throw ManifestError(diagnostics: diagnostics) }
        self.manifest = manifest
        self.scope = URLScope(hosts: Set(hostKeys), schemes: Set(manifest.schemes))
        self.general = general
        self.byHost = byHost
        let few = byHost.count <= 8 ? byHost.sorted { $0.key < $1.key } : []
        self.fewHosts = few.map(\.key)
        self.fewHostTries = few.map(\.value)
        self.canonicalBytes = served.canonicalBytes
        self.etag = served.etag
        self.warnings = diagnostics
        self.manifestSuffix = served.manifestSuffix
        self.targets = served.targets
        self.refusable = served.refusable
        self.routePositions = served.routePositions
    }

    /// What a manifest serves besides its tries, none of which depends on them.
    private struct Served: Sendable {
        let canonicalBytes: [UInt8]
        let etag: String
        let manifestSuffix: [UInt8]
        let targets: ResultTargets
        let refusable: [Bool]
        let routePositions: [SourcePosition]

        init(_ manifest: Manifest, routePositions: [SourcePosition]) {
            canonicalBytes = manifest.canonicalBytes
            etag = "\"sha256-\(SHA256.hex(canonicalBytes))\""
            var suffix = JSONWriter(capacity: 128)
            suffix.raw(",\"manifest\":{\"version\":")
            suffix.integer(manifest.version)
            suffix.raw(",\"etag\":")
            suffix.string(etag)
            suffix.byte(UInt8(ascii: "}"))
            manifestSuffix = suffix.bytes
            targets = ResultTargets(manifest)
            refusable = manifest.routes.map { $0.since != nil || $0.until != nil || !$0.queryChecks.isEmpty }
            self.routePositions = routePositions
        }
    }

    /// Orders pointers by their tokens, numbers numerically (`/routes/2` before `/routes/10`).
    static func pointerOrder(_ a: String, _ b: String) -> Bool {
        let x = a.split(separator: "/"), y = b.split(separator: "/")
        for (p, q) in zip(x, y) where p != q {
            if let m = Int(p), let n = Int(q) { return m < n }
            return p < q
        }
        return x.count < y.count
    }

    /// One trie for routes without `hosts`, one per host for routes restricted to it.
    static func compile(_ manifest: Manifest) -> (RouteTrie, [String: RouteTrie]) {
        var general: [RouteCandidate] = []
        var byHost: [String: [RouteCandidate]] = [:]
        for (r, route) in manifest.routes.enumerated() {
            for (p, pattern) in route.patterns.enumerated() {
                for (e, expansion) in pattern.expansions.enumerated() {
                    let segments = expansion.map { matcher(for: $0, in: route, caseSensitive: manifest.caseSensitive) }
                    let candidate = RouteCandidate(route: r, patternIndex: p, expansion: e, segments: segments,
                                                   priority: route.priority, name: route.name)
                    if let hosts = route.hosts {
                        for host in hosts { byHost[host, default: []].append(candidate) }
                    } else {
                        general.append(candidate)
                    }
                }
            }
        }
        return (RouteTrie(candidates: general, caseSensitive: manifest.caseSensitive),
                byHost.mapValues { RouteTrie(candidates: $0, caseSensitive: manifest.caseSensitive) })
    }

    static func matcher(for segment: PatternSegment, in route: Route, caseSensitive: Bool) -> SegmentMatcher {
        switch segment {
        case .literal(let text): return .literal(key: caseSensitive ? text : text.lowercased())
        case .param(let name): return .param(name: name, type: route.declaration(name)?.type ?? .string)
        case .wildcard(let name): return .wildcard(name: name, type: route.declaration(name)?.type ?? .string)
        }
    }

    /// The routes restricted to `host`, searched before ``general``.
    func restrictedTrie(for host: String?) -> RouteTrie? {
        guard let host, !byHost.isEmpty else { return nil }
        if fewHosts.isEmpty { return byHost[host] }
        for i in fewHosts.indices where fewHosts[i] == host { return fewHostTries[i] }
        return nil
    }
}
