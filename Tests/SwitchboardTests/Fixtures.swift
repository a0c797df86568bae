import Switchboard

/// Builds manifests for tests from route JSON fragments.
enum Fixtures {
    static func manifestJSON(_ routes: [String], extra: String = "") -> String {
        """
        {"version": 3, "updatedAt": "2026-11-20T10:00:00Z",
         "hosts": ["artsy.net", "staging.artsy.net", "live.artsy.net", "localhost:8080"],
         "schemes": ["artsy"] \(extra.isEmpty ? "" : ", " + extra),
         "routes": [\(routes.joined(separator: ",\n"))]}
        """
    }

    static func compile(_ routes: [String], extra: String = "") throws -> CompiledManifest {
        try CompiledManifest(json: Array(manifestJSON(routes, extra: extra).utf8))
    }

    /// The diagnostics of a manifest expected to be invalid.
    static func problems(_ routes: [String], extra: String = "") -> [ManifestDiagnostic] {
        do throws(ManifestError) {
            _ = try CompiledManifest(json: Array(manifestJSON(routes, extra: extra).utf8))
            return []
        } catch {
            return error.diagnostics
        }
    }

    /// The docs/manifest.md example manifest.
    static let spec: [String] = [
        #"{ "name": "home", "pattern": "/", "destination": "Home", "presentation": { "style": "tab", "tab": "home" } }"#,
        #"{ "name": "artwork", "pattern": "/artwork/:id", "destination": "Artwork", "params": { "id": { "type": "slug" } } }"#,
        #"{ "name": "artist", "pattern": "/artist/:id(/:tab)", "destination": "Artist", "params": { "tab": { "type": "enum", "values": ["works", "shows", "about"] } }, "variants": [ { "when": { "idiom": "tablet" }, "presentation": "modal" } ] }"#,
        #"{ "name": "artist-auction-results", "pattern": "/artist/:id/auction-results", "destination": "Artist", "inject": { "initialTab": "Insights" } }"#,
        #"{ "name": "conversation", "pattern": "/user/conversations/:id", "destination": "Conversation", "presentation": { "style": "modal", "modalStyle": "formSheet" }, "params": { "id": { "type": "int" } }, "since": "7.2.0" }"#,
        #"{ "name": "live-auction", "hosts": ["live.artsy.net"], "pattern": "/*", "destination": "LiveAuction", "presentation": "modal" }"#,
        #"{ "name": "legacy-work", "pattern": "/works/:id", "redirect": "/artwork/:id" }"#,
    ]
}

extension Resolution {
    /// Params as a dictionary of their JSON text, for compact assertions.
    var paramsText: [String: String] {
        Dictionary(uniqueKeysWithValues: params.map { ($0.key, String(decoding: $0.value.serialized(), as: UTF8.self)) })
    }

    var paramKeys: [String] { params.map(\.key) }
}
