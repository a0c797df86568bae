extension RouteTrie {
    /// Every candidate in the order precedence tries them: at each node the routes
    /// ending there, then literal children (by key), the typed child, the string child,
    /// and last the wildcards starting there.
    package var candidatesInPrecedenceOrder: [Int] {
        var out: [Int] = []
        out.reserveCapacity(candidates.count)
        var stack: [(node: Int, wildcardsOnly: Bool)] = [(0, false)]
        // Iterative DFS: push in reverse so pops come in precedence order.
        while let (node, wildcardsOnly) = stack.popLast() {
            if wildcardsOnly {
                for candidate in wildcards(node) { out.append(Int(candidate)) }
                continue
            }
            for candidate in terminals(node) { out.append(Int(candidate)) }
            stack.append((node, true))
            if nodes[node].stringChild >= 0 { stack.append((Int(nodes[node].stringChild), false)) }
            if nodes[node].typedChild >= 0 { stack.append((Int(nodes[node].typedChild), false)) }
            for edge in (Int(edgeStart[node])..<Int(edgeStart[node + 1])).reversed() { stack.append((Int(edgeChild[edge]), false)) }
        }
        return out
    }
}
