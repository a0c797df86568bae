// libFuzzer target: manifest loading and validation (compiled with Sources/Switchboard
// over a separately built RouteMatching by .ci/fuzz; not part of the package build).
// Any bytes must load or be refused with diagnostics, never trap; a loaded manifest
// must resolve a few URLs and produce its canonical bytes again identically.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzManifest(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let compiled = try? CompiledManifest(json: bytes) else { return 0 }
    for url in ["/", "https://artsy.net/a/b?c=d#e", "artsy://x/y/z", "/artist/1/works"] {
        _ = compiled.resultJSON(compiled.resolve(url, explain: true))
    }
    guard let reloaded = try? CompiledManifest(json: compiled.canonicalBytes), reloaded.etag == compiled.etag else {
        fatalError("canonical bytes do not load back to the same ETag")
    }
    return 0
}
