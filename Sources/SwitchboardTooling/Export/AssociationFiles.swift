import RouteMatching
import Switchboard

/// The association files a domain serves for its links to open the apps (docs/http-api.md): made
/// from the manifest and its `apps`, so that they never drift from the routes.
package enum AssociationFiles {
    /// Apple's limit on an `apple-app-site-association` file: past it, iOS reads none of it.
    package static let appleLimit = 128 << 10

    /// The `apple-app-site-association` of `host` (a host key): what `export aasa` writes for
    /// it, for every Apple app ID of the manifest; nil when the manifest names none.
    package static func appleAppSiteAssociation(_ compiled: CompiledManifest, host: String) -> [UInt8]? {
        guard let ids = compiled.manifest.apps?.appleAppIDs, !ids.isEmpty else { return nil }
        let components = AppSiteAssociation.components(compiled, host: host)
        return AppSiteAssociation.document(appIDs: ids, components: components).serialized()
    }

    /// The files a manifest makes: the `apple-app-site-association` of each of its hosts
    /// (by host key) and the `assetlinks.json` they share.
    package struct Made: Sendable {
        package let apple: [String: [UInt8]]
        package let assetLinks: [UInt8]?
    }

    /// The manifest's files, or why it cannot be served: an AASA past Apple's limit is a
    /// manifest error (`aasa-too-large`, at `/apps/apple`), never a file cut short.
    package static func make(_ compiled: CompiledManifest) -> Result<Made, ManifestError> {
        var apple: [String: [UInt8]] = [:]
        var problems: [ManifestDiagnostic] = []
        for host in compiled.manifest.hosts {
            guard case .success(let key) = HostName.key(listed: host), apple[key] == nil,
                  let file = appleAppSiteAssociation(compiled, host: key) else { continue }
            if file.count > appleLimit {
                problems.append(ManifestDiagnostic(code: .aasaTooLarge, pointer: "/apps/apple",
                    message: "the apple-app-site-association of \(host) would be \(file.count) bytes, past Apple's \(appleLimit): iOS would read none of it; join routes into fewer patterns, or serve fewer hosts"))
            }
            apple[key] = file
        }
        if !problems.isEmpty { return .failure(ManifestError(diagnostics: problems)) }
        return .success(Made(apple: apple, assetLinks: assetLinks(compiled.manifest.apps)))
    }

    /// `assetlinks.json`: a Digital Asset Links statement
    /// (`delegate_permission/common.handle_all_urls`) for each Android app of the manifest;
    /// nil when it names none. The same for every host.
    package static func assetLinks(_ apps: Apps?) -> [UInt8]? {
        guard let android = apps?.android, !android.isEmpty else { return nil }
        return JSONValue.array(android.map { app in
            .object([
                .init("relation", .array([.string("delegate_permission/common.handle_all_urls")])),
                .init("target", .object([
                    .init("namespace", .string("android_app")),
                    .init("package_name", .string(app.package)),
                    .init("sha256_cert_fingerprints", .array(app.sha256CertFingerprints.map { .string($0) })),
                ])),
            ])
        }).serialized()
    }
}
