extension RouteTrie {
    /// Every candidate in the order precedence tries them: at each node the routes
    /// ending there, then literal children (by key), the typed child, the string child,
    /// and last the wildcards starting there.
    public var candidatesInPrecedenceOrder: [Int] {
        var out: [Int] = []
        var stack: [(node: Int, wildcardsOnly: Bool)] = [(0, false)]
        // Iterative DFS: push in reverse so pops come in precedence order.
        while let (node, wildcardsOnly) = stack.popLast() {
            if wildcardsOnly {
                out += wildcards(node).map { Int($0) }
                continue
            }
            out += terminals(node).map { Int($0) }
            var next: [(Int, Bool)] = []
            for edge in literalEdges(node) { next.append((edge.child, false)) }
            if nodes[node].typedChild >= 0 { next.append((Int(nodes[node].typedChild), false)) }
            if nodes[node].stringChild >= 0 { next.append((Int(nodes[node].stringChild), false)) }
            next.append((node, true))
            stack += next.reversed().map { (node: $0.0, wildcardsOnly: $0.1) }
        }
        return out
    }
}
