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
        match(SegmentBuffer(segments), pruning: pruning, accept: accept)
    }

    /// ``match(_:pruning:accept:)`` on segments as bytes, as URLs are classified.
    public func match(
        _ path: SegmentBuffer,
        pruning: Bool = true,
        accept: (Int, TypeFailure?) -> Bool
    ) -> Int? {
        // Literal keys compare lowercased unless the manifest is case-sensitive: each
        // segment is folded as it is looked up (``literalChild(_:_:_:)``), and params
        // keep the case the URL gave.
        search(node: 0, depth: 0, path: path, pruning: pruning, accept: accept)
    }

    private func search(
        node: Int, depth: Int, path: SegmentBuffer, pruning: Bool,
        accept: (Int, TypeFailure?) -> Bool
    ) -> Int? {
        if depth == path.count {
            if let found = offer(terminals(node), path, accept) { return found }
            return offer(wildcards(node), path, accept)
        }
        let literal = literalChild(node, path.bytes, path.range(depth))
        if literal >= 0, let found = search(node: literal, depth: depth + 1, path: path, pruning: pruning, accept: accept) {
            return found
        }
        let here = nodes[node]
        let typed = Int(here.typedChild)
        if typed >= 0, !pruning || typedTypes(node).contains(where: { $0.accepts(path.bytes[path.range(depth)]) }),
           let found = search(node: typed, depth: depth + 1, path: path, pruning: pruning, accept: accept) {
            return found
        }
        let string = Int(here.stringChild)
        if string >= 0, let found = search(node: string, depth: depth + 1, path: path, pruning: pruning, accept: accept) {
            return found
        }
        return offer(wildcards(node), path, accept)
    }

    @inline(__always)
    private func offer(_ list: ArraySlice<Int32>, _ path: SegmentBuffer, _ accept: (Int, TypeFailure?) -> Bool) -> Int? {
        for c in list {
            let candidate = Int(c)
            if accept(candidate, typeFailure(candidates[candidate], path)) { return candidate }
        }
        return nil
    }

    /// The first param of `candidate` whose segment value fails its type. (Read from
    /// the pattern's segments, which a result reads anyway, rather than from a list of
    /// the typed params apart: one object fewer to fetch per match on a large table.)
    func typeFailure(_ candidate: RouteCandidate, _ path: SegmentBuffer) -> TypeFailure? {
        if !candidate.hasTypedParams { return nil }
        let segments = candidate.segments
        for depth in segments.indices {
            switch segments[depth] {
            case .literal: continue
            case .param(_, let type):
                if !type.accepts(path.bytes[path.range(depth)]) { return TypeFailure(candidate: candidate, depth: depth) }
            case .wildcard(_, let type):
                if !type.accepts(path.bytes[path.tail(depth)]) { return TypeFailure(candidate: candidate, depth: depth) }
            }
        }
        return nil
    }
}
