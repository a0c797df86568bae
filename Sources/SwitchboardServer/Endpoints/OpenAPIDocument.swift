/// The OpenAPI 3.1 description of the HTTP API, served at `/openapi.json`: the file
/// `OpenAPI/openapi.json`, embedded in the binary as the explorer's files are (the one copy
/// in the repository; `OpenAPITests` validates it).
enum OpenAPIDocument {
    static let bytes: [UInt8] = PackageResources.openapi_json
}
