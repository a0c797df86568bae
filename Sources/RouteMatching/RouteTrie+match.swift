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
        var keys: [String]? = nil
        if !caseSensitive {
            for (k, s) in segments.enumerated() where Self.needsLowercasing(s) {
                if keys == nil { keys = segments }
                keys![k] = s.lowercased()
            }
        }
        return search(node: 0, depth: 0, segments: segments, keys: keys ?? segments, pruning: pruning, accept: accept)
    }

    private func search(
        node index: Int, depth: Int, segments: [String], keys: [String], pruning: Bool,
        accept: (Int, TypeFailure?) -> Bool
    ) -> Int? {
        let node = nodes[index]
        if depth == segments.count {
            if let found = offer(node.terminals, segments, accept) { return found }
            return offer(node.wildcards, segments, accept)
        }
        if let next = node.literals[keys[depth]],
           let found = search(node: next, depth: depth + 1, segments: segments, keys: keys, pruning: pruning, accept: accept) {
            return found
        }
        if node.typed >= 0, !pruning || node.typedTypes.contains(where: { $0.accepts(segments[depth]) }),
           let found = search(node: node.typed, depth: depth + 1, segments: segments, keys: keys, pruning: pruning, accept: accept) {
            return found
        }
        if node.string >= 0,
           let found = search(node: node.string, depth: depth + 1, segments: segments, keys: keys, pruning: pruning, accept: accept) {
            return found
        }
        return offer(node.wildcards, segments, accept)
    }

    private func offer(_ list: [Int], _ segments: [String], _ accept: (Int, TypeFailure?) -> Bool) -> Int? {
        for candidate in list where accept(candidate, typeFailure(candidates[candidate], segments)) {
            return candidate
        }
        return nil
    }

    /// The first param of `candidate` whose segment value fails its type.
    func typeFailure(_ candidate: RouteCandidate, _ segments: [String]) -> TypeFailure? {
        for (depth, matcher) in candidate.segments.enumerated() {
            switch matcher {
            case .literal: continue
            case .param(let name, let type):
                if type.isTyped, !type.accepts(segments[depth]) { return TypeFailure(param: name, type: type) }
            case .wildcard(let name, let type):
                if type.isTyped, !type.accepts(segments[depth...].joined(separator: "/")) {
                    return TypeFailure(param: name, type: type)
                }
            }
        }
        return nil
    }

    @inline(__always) static func needsLowercasing(_ s: String) -> Bool {
        s.utf8.contains { ($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z")) || $0 >= 0x80 }
    }
}
