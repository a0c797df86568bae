extension RouteTrie {
    /// Offers the candidates matching `segments` to `accept` in precedence order until
    /// it returns true, and returns that candidate's index.
    ///
    /// `accept` gets each candidate whose shape matches, with the first param that fails
    /// its type (it should refuse those; they are offered so `explain` can say why).
    /// With `pruning`, subtrees whose typed params all fail are skipped unseen.
    public func match(
        _ segments: [String],
        pruning: Bool = true,
        accept: (Int, TypeFailure?) -> Bool
    ) -> Int? {
        var keys = segments
        if !caseSensitive {
            for k in segments.indices where Self.needsLowercasing(segments[k]) { keys[k] = segments[k].lowercased() }
        }
        return search(node: 0, depth: 0, segments: segments, keys: keys, pruning: pruning, accept: accept)
    }

    private func search(
        node: Int, depth: Int, segments: [String], keys: [String], pruning: Bool,
        accept: (Int, TypeFailure?) -> Bool
    ) -> Int? {
        if depth == segments.count {
            if let found = offer(terminals(node), segments, accept) { return found }
            return offer(wildcards(node), segments, accept)
        }
        let literal = literalChild(node, keys[depth])
        if literal >= 0, let found = search(node: literal, depth: depth + 1, segments: segments, keys: keys, pruning: pruning, accept: accept) {
            return found
        }
        let typed = Int(typedChild[node])
        if typed >= 0, !pruning || typedTypes[node].contains(where: { $0.accepts(segments[depth]) }),
           let found = search(node: typed, depth: depth + 1, segments: segments, keys: keys, pruning: pruning, accept: accept) {
            return found
        }
        let string = Int(stringChild[node])
        if string >= 0, let found = search(node: string, depth: depth + 1, segments: segments, keys: keys, pruning: pruning, accept: accept) {
            return found
        }
        return offer(wildcards(node), segments, accept)
    }

    @inline(__always)
    private func offer(_ list: ArraySlice<Int32>, _ segments: [String], _ accept: (Int, TypeFailure?) -> Bool) -> Int? {
        for c in list {
            let candidate = Int(c)
            if accept(candidate, typeFailure(candidates[candidate], segments)) { return candidate }
        }
        return nil
    }

    /// The first param of `candidate` whose segment value fails its type.
    func typeFailure(_ candidate: RouteCandidate, _ segments: [String]) -> TypeFailure? {
        for typed in candidate.typedDepths {
            let value = typed.wildcard ? segments[typed.depth...].joined(separator: "/") : segments[typed.depth]
            if !typed.type.accepts(value) { return TypeFailure(param: typed.name, type: typed.type) }
        }
        return nil
    }

    @inline(__always) static func needsLowercasing(_ s: String) -> Bool {
        let span = s.utf8.span
        for i in span.indices {
            let b = span[i]
            if (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z")) || b >= 0x80 { return true }
        }
        return false
    }
}
