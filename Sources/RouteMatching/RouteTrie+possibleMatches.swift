extension RouteTrie {
    /// The candidates a path of the shape `pattern` could reach, in precedence order,
    /// each with whether it certainly matches (`false` when a param of unknown value
    /// meets a literal or a typed param). Used to check redirect targets at load.
    package func possibleMatches(_ pattern: [PatternSegment]) -> [(candidate: Int, certain: Bool)] {
        var out: [(Int, Bool)] = []
        walk(0, pattern[...], certain: true, &out)
        return out
    }

    private func walk(_ index: Int, _ rest: ArraySlice<PatternSegment>, certain: Bool, _ out: inout [(Int, Bool)]) {
        guard let segment = rest.first else {
            for c in terminals(index) + wildcards(index) { out.append((Int(c), certain && typeFailureIsImpossible(Int(c)))) }
            return
        }
        let typed = Int(nodes[index].typedChild), string = Int(nodes[index].stringChild)
        let tail = rest.dropFirst()
        switch segment {
        case .literal(let text):
            let next = literalChild(index, text)
            if next >= 0 { walk(next, tail, certain: certain, &out) }
            if typed >= 0, typedTypes(index).contains(where: { $0.accepts(text) }) { walk(typed, tail, certain: false, &out) }
            if string >= 0 { walk(string, tail, certain: certain, &out) }
        case .param:
            for edge in literalEdges(index) { walk(edge.child, tail, certain: false, &out) }
            if typed >= 0 { walk(typed, tail, certain: false, &out) }
            if string >= 0 { walk(string, tail, certain: certain, &out) }
        case .wildcard:
            // Zero or more segments of unknown value: anything below may match.
            collect(index, &out)
            return
        }
        for c in wildcards(index) { out.append((Int(c), false)) }
    }

    private func collect(_ index: Int, _ out: inout [(Int, Bool)]) {
        for c in terminals(index) + wildcards(index) { out.append((Int(c), false)) }
        for edge in literalEdges(index) { collect(edge.child, &out) }
        if nodes[index].typedChild >= 0 { collect(Int(nodes[index].typedChild), &out) }
        if nodes[index].stringChild >= 0 { collect(Int(nodes[index].stringChild), &out) }
    }

    private func typeFailureIsImpossible(_ candidate: Int) -> Bool {
        candidates[candidate].segments.allSatisfy {
            if case .wildcard(_, let type) = $0 { return !type.isTyped }
            return true
        }
    }
}
