extension RouteTrie {
    /// Offers the candidates matching `segments` to `accept` in precedence order until
    /// it returns true, and returns that candidate's index.
    ///
    /// `accept` gets each candidate whose shape matches, with the first param that fails
    /// its type (it should refuse those; they are offered so `explain` can say why).
    /// With `pruning`, subtrees whose typed params all fail are skipped unseen.
    package func match(
        _ segments: [String],
        pruning: Bool = true,
        accept: (Int, TypeFailure?) -> Bool
    ) -> Int? {
        match(SegmentBuffer(segments), pruning: pruning, accept: accept)
    }

    /// ``match(_:pruning:accept:)`` on segments as bytes, as URLs are classified.
    package func match(
        _ path: SegmentBuffer,
        pruning: Bool = true,
        accept: (Int, TypeFailure?) -> Bool
    ) -> Int? {
        // Literal keys compare lowercased unless the manifest is case-sensitive: each
        // segment is folded as it is looked up (``literalChild(_:_:_:)``), and params
        // keep the case the URL gave.
        // The path's bytes as one span for the whole search.
        path.bytes.withSpan { bytes in
            search(node: 0, depth: 0, path: path, bytes: bytes, pruning: pruning, verified: 0, accept: accept)
        }
    }

    /// `verified`: a bit for each depth above whose value pruning found of the one type
    /// every candidate below has there (a typed child with a single type), which
    /// ``typeFailure(_:_:verified:)`` need not check again.
    private func search(
        node: Int, depth: Int, path: SegmentBuffer, bytes: Span<UInt8>, pruning: Bool, verified: UInt64,
        accept: (Int, TypeFailure?) -> Bool
    ) -> Int? {
        if depth == path.count {
            if let found = offer(terminals(node), path, verified, accept) { return found }
            return offer(wildcards(node), path, verified, accept)
        }
        let literal = literalChild(node, bytes.extracting(path.range(depth)))
        if literal >= 0, let found = search(node: literal, depth: depth + 1, path: path, bytes: bytes, pruning: pruning, verified: verified, accept: accept) {
            return found
        }
        let here = nodes[node]
        let typed = Int(here.typedChild)
        if typed >= 0 {
            var descend = true, checked = verified
            if pruning {
                let types = typedTypes(node)
                descend = types.contains { $0.accepts(path.bytes[path.range(depth)]) }
                if descend && types.count == 1 && depth < 63 { checked |= 1 << UInt64(depth) }
            }
            if descend, let found = search(node: typed, depth: depth + 1, path: path, bytes: bytes, pruning: pruning, verified: checked, accept: accept) {
                return found
            }
        }
        let string = Int(here.stringChild)
        if string >= 0, let found = search(node: string, depth: depth + 1, path: path, bytes: bytes, pruning: pruning, verified: verified, accept: accept) {
            return found
        }
        return offer(wildcards(node), path, verified, accept)
    }

    @inline(__always)
    private func offer(_ list: ArraySlice<Int32>, _ path: SegmentBuffer, _ verified: UInt64, _ accept: (Int, TypeFailure?) -> Bool) -> Int? {
        for c in list {
            let candidate = Int(c)
            if accept(candidate, typeFailure(candidates[candidate], path, verified: verified)) { return candidate }
        }
        return nil
    }

    /// The first param of `candidate` whose segment value fails its type; none when each
    /// of its typed params lies at a depth in `verified` (see ``search``). (Read from
    /// the pattern's segments, which a result reads anyway, rather than from a list of
    /// the typed params apart: one object fewer to fetch per match on a large table.)
    func typeFailure(_ candidate: RouteCandidate, _ path: SegmentBuffer, verified: UInt64 = 0) -> TypeFailure? {
        if candidate.typedDepths & ~verified == 0 { return nil }
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
