// What apple-floors.py must find (its own test: `apple-floors.py --probe
// Tests/Portability/probe.swift`): an unguarded Glibc import, a Linux-only call, and two
// declarations from Apple's 26 OSes used outside `#available`; the guarded use and the
// guarded import are allowed. Not part of any target.
#if canImport(Glibc)
import Glibc
#endif
import Glibc

func probe(_ bytes: [UInt8], _ text: String) -> Int {
    if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) { _ = bytes.span.count }
    _ = malloc_trim(0)
    let slice = bytes[...]
    return bytes.span.count + text.utf8.span.count + slice.span.count
}
