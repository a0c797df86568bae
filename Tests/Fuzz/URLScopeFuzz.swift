// libFuzzer target: URL classification and normalization (compiled together with
// Sources/RouteMatching by .ci/fuzz; not part of the package build).
// Any input must classify without trapping, and an internal result must be stable:
// its normalized path classifies again to the same segments.

let fuzzScope = URLScope(hosts: ["artsy.net", "live.artsy.net", "localhost:8080"], schemes: ["artsy"])

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzURLScope(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if case .internal(let url) = fuzzScope.classify(bytes) {
        if case .internal(let again) = fuzzScope.classify(url.path), again.segments != url.segments {
            fatalError("unstable normalization: \(url.path) -> \(again.segments) != \(url.segments)")
        }
    }
    return 0
}
