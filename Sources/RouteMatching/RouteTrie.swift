/// An immutable trie of route candidates keyed by shape (literal value, typed param,
/// string param, wildcard), built once per manifest and shared by every request.
///
/// Resolution walks it depth-first in precedence order (literal, typed, string,
/// wildcard) and backtracks, so `/a/b/c` and `/a/:x/d` still match `/a/b/d`; the first
/// candidate accepted is the most specific one. Candidates of the same shape share a
/// node and are tried by priority.
///
/// ```swift
/// let trie = RouteTrie(candidates: candidates, caseSensitive: false)
/// trie.match(["artist", "banksy"]) { candidate, failure in failure == nil }
/// ```
public struct RouteTrie: Sendable {
    struct Node: Sendable {
        var literals: [String: Int] = [:]
        var typed = -1
        /// Distinct param types at the typed child, to skip it when none accepts.
        var typedTypes: [ParamType] = []
        var string = -1
        /// Candidates ending here, in priority order.
        var terminals: [Int] = []
        /// Candidates whose wildcard starts here, in priority order.
        var wildcards: [Int] = []
    }

    /// A param that failed its type, reported with a refused candidate.
    public struct TypeFailure: Sendable, Equatable {
        public let param: String
        public let type: ParamType
    }

    public let candidates: [RouteCandidate]
    public let caseSensitive: Bool
    let nodes: [Node]

    public init(candidates: [RouteCandidate], caseSensitive: Bool) {
        var nodes = [Node()]
        for (index, candidate) in candidates.enumerated() {
            var current = 0
            for matcher in candidate.segments {
                switch matcher {
                case .literal(let key):
                    if let next = nodes[current].literals[key] {
                        current = next
                    } else {
                        nodes.append(Node())
                        nodes[current].literals[key] = nodes.count - 1
                        current = nodes.count - 1
                    }
                case .param(_, let type):
                    if type.isTyped {
                        if !nodes[current].typedTypes.contains(type) { nodes[current].typedTypes.append(type) }
                        if nodes[current].typed < 0 { nodes.append(Node()); nodes[current].typed = nodes.count - 1 }
                        current = nodes[current].typed
                    } else {
                        if nodes[current].string < 0 { nodes.append(Node()); nodes[current].string = nodes.count - 1 }
                        current = nodes[current].string
                    }
                case .wildcard:
                    nodes[current].wildcards.append(index)
                    current = -1
                }
                if current < 0 { break }
            }
            if current >= 0 { nodes[current].terminals.append(index) }
        }
        for k in nodes.indices {
            nodes[k].terminals.sort { candidates[$0].precedes(candidates[$1]) }
            nodes[k].wildcards.sort { candidates[$0].precedes(candidates[$1]) }
        }
        self.candidates = candidates
        self.caseSensitive = caseSensitive
        self.nodes = nodes
    }

    /// Groups of candidate indices of the same shape (same node), each in priority
    /// order: where ambiguity and shadowing are looked for.
    public var shapeGroups: [[Int]] {
        nodes.flatMap { [$0.terminals, $0.wildcards] }.filter { $0.count > 1 }
    }

    /// Number of nodes, for diagnostics and benchmarks.
    public var nodeCount: Int { nodes.count }
}
