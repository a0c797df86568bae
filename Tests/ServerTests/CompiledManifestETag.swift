import Switchboard

enum CompiledManifestETag {
    static func of(_ json: String) throws -> String {
        try CompiledManifest(json: Array(json.utf8)).etag
    }
}
