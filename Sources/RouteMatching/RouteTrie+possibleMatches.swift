extension RouteTrie {
    /// The candidates a path of the shape `pattern` could reach, in precedence order,
    /// each with whether it certainly matches (`false` when a param of unknown value
    /// meets a literal or a typed param). Used to check redirect targets at load.
    public func possibleMatches(_ pattern: [PatternSegment]) -> [(candidate: Int, certain: Bool)] {
        var out: [(Int, Bool)] = []
        walk(0, pattern[...], certain: true, &out)
        return out
    }

    private func walk(_ index: Int, _ rest: ArraySlice<PatternSegment>, certain: Bool, _ out: inout [(Int, Bool)]) {
        let node = nodes[index]
        guard let segment = rest.first else {
            for c in node.terminals { out.append((c, certain && typeFailureIsImpossible(c))) }
            for c in node.wildcards { out.append((c, certain && typeFailureIsImpossible(c))) }
            return
        }
        let tail = rest.dropFirst()
        switch segment {
        case .literal(let text):
            let key = caseSensitive ? text : text.lowercased()
            if let next = node.literals[key] { walk(next, tail, certain: certain, &out) }
            if node.typed >= 0, node.typedTypes.contains(where: { $0.accepts(text) }) { walk(node.typed, tail, certain: false, &out) }
            if node.string >= 0 { walk(node.string, tail, certain: certain, &out) }
        case .param:
            for next in node.literals.values.sorted() { walk(next, tail, certain: false, &out) }
            if node.typed >= 0 { walk(node.typed, tail, certain: false, &out) }
            if node.string >= 0 { walk(node.string, tail, certain: certain, &out) }
        case .wildcard:
            // Zero or more segments of unknown value: anything below may match.
            collect(index, &out)
            return
        }
        for c in node.wildcards { out.append((c, false)) }
    }

    private func collect(_ index: Int, _ out: inout [(Int, Bool)]) {
        let node = nodes[index]
        for c in node.terminals + node.wildcards { out.append((c, false)) }
        for next in node.literals.values.sorted() { collect(next, &out) }
        if node.typed >= 0 { collect(node.typed, &out) }
        if node.string >= 0 { collect(node.string, &out) }
    }

    private func typeFailureIsImpossible(_ candidate: Int) -> Bool {
        candidates[candidate].segments.allSatisfy {
            if case .wildcard(_, let type) = $0 { return !type.isTyped }
            return true
        }
    }
}
