/// Byte arrays a connection keeps between its requests and lends to the handler
/// (``HTTPHandler/handle(_:scratch:)``): a request that takes one and gives it back
/// allocates nothing for it. Two slots, for what a request builds: what it decoded from
/// its query, and its response's body, which the daemon gives back once libmicrohttpd
/// has copied it.
///
/// An array given back is kept emptied with its capacity, up to ``keptCapacity``
/// bytes; a larger one is let go, so an idle connection holds little.
///
/// ```swift
/// var decoded = scratch.take()        // empty, with the capacity of an earlier request's
/// decoded.append(contentsOf: bytes)
/// scratch.give(decoded)                // kept for the next request
/// ```
package struct ScratchBuffers: Sendable {
    private var first: [UInt8] = []
    private var second: [UInt8] = []

    /// The largest capacity kept for the next request.
    package static let keptCapacity = 1024

    package init() {}

    /// An empty array, with the capacity of one given back earlier when there is one.
    package mutating func take() -> [UInt8] {
        var taken: [UInt8] = []
        if first.capacity > 0 {
            swap(&taken, &first)
        } else if second.capacity > 0 {
            swap(&taken, &second)
        }
        return taken
    }

    /// Keeps `bytes`, emptied, for a later ``take()``: the caller holds no other copy of it
    /// (one still shared would be copied when emptied, which is no saving).
    package mutating func give(_ bytes: consuming [UInt8]) {
        guard bytes.capacity > 0, bytes.capacity <= Self.keptCapacity else { return }
        // Emptied where it was given, not in a copy: a copy, as an unoptimized build makes
        // of a `var`, would be shared, and emptying a shared array allocates a new one.
        bytes.removeAll(keepingCapacity: true)
        if first.capacity == 0 {
            swap(&bytes, &first)
        } else if second.capacity == 0 {
            swap(&bytes, &second)
        }
    }
}
