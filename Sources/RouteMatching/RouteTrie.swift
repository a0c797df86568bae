/// An immutable trie of route candidates keyed by shape (literal value, typed param,
/// string param, wildcard), built once per manifest and shared by every request.
///
/// Resolution walks it depth-first in precedence order (literal, typed, string,
/// wildcard) and backtracks, so `/a/b/c` and `/a/:x/d` still match `/a/b/d`; the first
/// candidate accepted is the most specific one. Candidates of the same shape share a
/// node and are tried by priority.
///
/// The product is flat: one array of packed nodes, one open-addressing table for every
/// literal edge (keyed by parent node and text, FNV-1a hashed), and candidate lists and
/// param types as ranges of one array each, so a lookup copies nothing and hashes with
/// no `Hasher` setup.
///
/// ```swift
/// let trie = RouteTrie(candidates: candidates, caseSensitive: false)
/// trie.match(["artist", "banksy"]) { candidate, failure in failure == nil }
/// trie.match(url.segmentBuffer) { candidate, failure in failure == nil }
/// ```
public struct RouteTrie: Sendable {
    /// A param that failed its type, reported with a refused candidate.
    public struct TypeFailure: Sendable, Equatable {
        public let param: String
        public let type: ParamType
    }

    public let candidates: [RouteCandidate]
    public let caseSensitive: Bool

    /// Everything a visit to a node reads besides its literal edges, packed together:
    /// one cache line per node visited rather than one per array, which is what a
    /// 10,000-route trie costs most on.
    struct Node: Sendable {
        var typedChild: Int32 = -1
        var stringChild: Int32 = -1
        /// `lists[listStart..<wildcardStart]`: candidates ending here, in precedence
        /// order; `lists[wildcardStart..<listEnd]`: those whose wildcard starts here.
        var listStart: Int32 = 0
        var wildcardStart: Int32 = 0
        var listEnd: Int32 = 0
        /// `typedTypes[typesStart..<typesEnd]`: the distinct param types at the typed
        /// child, to skip it when none accepts.
        var typesStart: Int32 = 0
        var typesEnd: Int32 = 0
    }

    let nodes: [Node]
    let lists: [Int32]
    let typedTypes: [ParamType]

    // Literal edges, grouped by parent in node order: a node's edges are
    // `edgeStart[node]..<edgeStart[node + 1]`, sorted by key.
    let edgeStart: [Int32]
    let edgeKey: [String]
    let edgeChild: [Int32]
    /// The open-addressing table of literal edges: each slot holds its edge whole (parent,
    /// child, where its key's UTF-8 lies in `keyBytes`), so a lookup reads one slot and
    /// the key's bytes.
    let slots: [Slot]
    let slotMask: Int
    let keyBytes: [UInt8]

    struct Slot: Sendable {
        static let empty = Slot(parent: -1, child: -1, keyStart: 0, keyEnd: 0)
        let parent: Int32
        let child: Int32
        let keyStart: Int32
        let keyEnd: Int32
    }

    public init(candidates: [RouteCandidate], caseSensitive: Bool) {
        var builder = Builder()
        for (index, candidate) in candidates.enumerated() { builder.insert(candidate, at: index) }
        let order: (Int, Int) -> Bool = { candidates[$0].precedes(candidates[$1]) }
        var nodes: [Node] = []
        nodes.reserveCapacity(builder.nodes.count)
        var lists: [Int32] = []
        var typedTypes: [ParamType] = []
        for built in builder.nodes {
            var node = Node(typedChild: Int32(built.typed), stringChild: Int32(built.string))
            node.listStart = Int32(lists.count)
            lists += (built.terminals.count > 1 ? built.terminals.sorted(by: order) : built.terminals).map { Int32($0) }
            node.wildcardStart = Int32(lists.count)
            lists += (built.wildcards.count > 1 ? built.wildcards.sorted(by: order) : built.wildcards).map { Int32($0) }
            node.listEnd = Int32(lists.count)
            node.typesStart = Int32(typedTypes.count)
            typedTypes += built.typedTypes
            node.typesEnd = Int32(typedTypes.count)
            nodes.append(node)
        }
        var edgeParent: [Int32] = [], edgeKey: [String] = [], edgeChild: [Int32] = []
        var edgeStart: [Int32] = []
        for (parent, node) in builder.nodes.enumerated() {
            edgeStart.append(Int32(edgeKey.count))
            for (key, child) in node.literals.sorted(by: { $0.key < $1.key }) {
                edgeParent.append(Int32(parent))
                edgeKey.append(key)
                edgeChild.append(Int32(child))
            }
        }
        edgeStart.append(Int32(edgeKey.count))
        var size = 8
        while size < edgeKey.count * 2 { size <<= 1 }
        var slots = [Slot](repeating: .empty, count: size)
        var keyBytes: [UInt8] = []
        for e in edgeKey.indices {
            let start = keyBytes.count
            keyBytes += edgeKey[e].utf8
            var slot = Self.hash(keyBytes, start..<keyBytes.count, parent: Int(edgeParent[e])) & (size - 1)
            while slots[slot].parent >= 0 { slot = (slot + 1) & (size - 1) }
            slots[slot] = Slot(parent: edgeParent[e], child: edgeChild[e], keyStart: Int32(start), keyEnd: Int32(keyBytes.count))
        }
        self.candidates = candidates
        self.caseSensitive = caseSensitive
        self.nodes = nodes
        self.typedTypes = typedTypes
        self.lists = lists
        self.edgeStart = edgeStart
        self.edgeKey = edgeKey
        self.edgeChild = edgeChild
        self.slots = slots
        self.keyBytes = keyBytes
        self.slotMask = size - 1
    }

    /// FNV-1a over a key's UTF-8 (`bytes[range]`), seeded with the parent node.
    @inline(__always)
    static func hash(_ bytes: [UInt8], _ range: Range<Int>, parent: Int) -> Int {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325 ^ (UInt64(truncatingIfNeeded: parent) &* 0x9E37_79B9_7F4A_7C15)
        for i in range {
            h ^= UInt64(bytes[i])
            h = h &* 0x100_0000_01b3
        }
        return Int(truncatingIfNeeded: h ^ (h >> 29))
    }

    /// The child reached from `node` by the literal `bytes[range]`, or -1.
    @inline(__always)
    func literalChild(_ node: Int, _ bytes: [UInt8], _ range: Range<Int>) -> Int {
        var slot = Self.hash(bytes, range, parent: node) & slotMask
        while true {
            let entry = slots[slot]
            if entry.parent < 0 { return -1 }
            if Int(entry.parent) == node && keyEquals(entry, bytes, range) { return Int(entry.child) }
            slot = (slot + 1) & slotMask
        }
    }

    /// The child reached from `node` by the literal `key`, or -1.
    func literalChild(_ node: Int, _ key: String) -> Int {
        let bytes = Array(key.utf8)
        return literalChild(node, bytes, 0..<bytes.count)
    }

    @inline(__always)
    private func keyEquals(_ entry: Slot, _ bytes: [UInt8], _ range: Range<Int>) -> Bool {
        let start = Int(entry.keyStart), end = Int(entry.keyEnd)
        guard end - start == range.count else { return false }
        var j = range.lowerBound
        for i in start..<end {
            guard keyBytes[i] == bytes[j] else { return false }
            j += 1
        }
        return true
    }

    /// The literal edges leaving `node`, as (key, child), sorted by key.
    func literalEdges(_ node: Int) -> [(key: String, child: Int)] {
        (Int(edgeStart[node])..<Int(edgeStart[node + 1])).map { (edgeKey[$0], Int(edgeChild[$0])) }
    }

    @inline(__always)
    func terminals(_ node: Int) -> ArraySlice<Int32> {
        lists[Int(nodes[node].listStart)..<Int(nodes[node].wildcardStart)]
    }

    @inline(__always)
    func wildcards(_ node: Int) -> ArraySlice<Int32> {
        lists[Int(nodes[node].wildcardStart)..<Int(nodes[node].listEnd)]
    }

    /// The distinct param types at `node`'s typed child.
    @inline(__always)
    func typedTypes(_ node: Int) -> ArraySlice<ParamType> {
        typedTypes[Int(nodes[node].typesStart)..<Int(nodes[node].typesEnd)]
    }

    /// Groups of candidate indices of the same shape (same node), each in priority
    /// order: where ambiguity and shadowing are looked for.
    public var shapeGroups: [[Int]] {
        (nodes.indices.map(terminals) + nodes.indices.map(wildcards)).filter { $0.count > 1 }.map { $0.map { Int($0) } }
    }

    /// Number of nodes, for diagnostics and benchmarks.
    public var nodeCount: Int { nodes.count }

    /// The mutable trie the product is frozen from.
    struct Builder {
        struct Node {
            var literals: [String: Int] = [:]
            var typed = -1
            var typedTypes: [ParamType] = []
            var string = -1
            var terminals: [Int] = []
            var wildcards: [Int] = []
        }

        var nodes = [Node()]

        private mutating func newNode() -> Int {
            nodes.append(Node())
            return nodes.count - 1
        }

        mutating func insert(_ candidate: RouteCandidate, at index: Int) {
            var current = 0
            for matcher in candidate.segments {
                switch matcher {
                case .literal(let key):
                    if let next = nodes[current].literals[key] {
                        current = next
                    } else {
                        let next = newNode()
                        nodes[current].literals[key] = next
                        current = next
                    }
                case .param(_, let type) where type.isTyped:
                    if !nodes[current].typedTypes.contains(type) { nodes[current].typedTypes.append(type) }
                    if nodes[current].typed < 0 { nodes[current].typed = newNode() }
                    current = nodes[current].typed
                case .param:
                    if nodes[current].string < 0 { nodes[current].string = newNode() }
                    current = nodes[current].string
                case .wildcard:
                    nodes[current].wildcards.append(index)
                    return
                }
            }
            nodes[current].terminals.append(index)
        }
    }
}
