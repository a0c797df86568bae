/// An immutable trie of route candidates keyed by shape (literal value, typed param,
/// string param, wildcard), built once per manifest and shared by every request.
///
/// Resolution walks it depth-first in precedence order (literal, typed, string,
/// wildcard) and backtracks, so `/a/b/c` and `/a/:x/d` still match `/a/b/d`; the first
/// candidate accepted is the most specific one. Candidates of the same shape share a
/// node and are tried by priority.
///
/// The product is flat: one array of packed nodes, one open-addressing table for every
/// literal edge (keyed by parent node and text, hashed a word at a time), and candidate
/// lists and param types as ranges of one array each, so a lookup copies nothing and
/// hashes with no `Hasher` setup.
///
/// ```swift
/// let trie = RouteTrie(candidates: candidates, caseSensitive: false)
/// trie.match(["artist", "banksy"]) { candidate, failure in failure == nil }
/// trie.match(url.segmentBuffer) { candidate, failure in failure == nil }
/// ```
package struct RouteTrie: Sendable {
    /// A param that failed its type, reported with a refused candidate. Holds the
    /// candidate and the param's depth, and reads the name and type from them when asked:
    /// an optional failure passed with every candidate tried is then a reference and an
    /// integer, not a String and a ParamType destroyed through generic value witnesses.
    package struct TypeFailure: Sendable, Equatable {
        let candidate: RouteCandidate
        let depth: Int

        package var param: String { candidate.segments[depth].param?.name ?? "" }
        package var type: ParamType { candidate.segments[depth].param?.type ?? .string }

        package static func == (a: TypeFailure, b: TypeFailure) -> Bool { a.param == b.param && a.type == b.type }
    }

    package let candidates: [RouteCandidate]
    package let caseSensitive: Bool

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
    /// Contiguous: `ContiguousArray.span` back-deploys to every floor of the package.
    let keyBytes: ContiguousArray<UInt8>

    struct Slot: Sendable {
        static let empty = Slot(parent: -1, child: -1, keyStart: 0, keyEnd: 0)
        let parent: Int32
        let child: Int32
        let keyStart: Int32
        let keyEnd: Int32
    }

    package init(candidates: [RouteCandidate], caseSensitive: Bool) {
        var builder = Builder()
        for (index, candidate) in candidates.enumerated() { builder.insert(candidate, at: Int32(index)) }
        var nodes = builder.nodes
        let terminals = Grouped(builder.terminals, groups: nodes.count)
        let wildcards = Grouped(builder.wildcards, groups: nodes.count)
        let types = Grouped(builder.typedTypes, groups: nodes.count)
        let order: (Int32, Int32) -> Bool = { candidates[Int($0)].precedes(candidates[Int($1)]) }
        var lists: [Int32] = []
        lists.reserveCapacity(builder.terminals.count + builder.wildcards.count)
        func appendInOrder(_ group: ArraySlice<Int32>) {
            if group.count > 1 { lists += group.sorted(by: order) } else if let only = group.first { lists.append(only) }
        }
        var typedTypes: [ParamType] = []
        for node in nodes.indices {
            nodes[node].listStart = Int32(lists.count)
            appendInOrder(terminals[node])
            nodes[node].wildcardStart = Int32(lists.count)
            appendInOrder(wildcards[node])
            nodes[node].listEnd = Int32(lists.count)
            nodes[node].typesStart = Int32(typedTypes.count)
            for type in types[node] where !typedTypes[Int(nodes[node].typesStart)...].contains(type) { typedTypes.append(type) }
            nodes[node].typesEnd = Int32(typedTypes.count)
        }
        // Literal edges by parent, each parent's sorted by key.
        let edges = Grouped(builder.edges.map { ($0.parent, $0) }, groups: nodes.count)
        var edgeStart: [Int32] = [], edgeKey: [String] = [], edgeChild: [Int32] = []
        edgeStart.reserveCapacity(nodes.count + 1)
        edgeKey.reserveCapacity(builder.edges.count)
        edgeChild.reserveCapacity(builder.edges.count)
        for node in nodes.indices {
            edgeStart.append(Int32(edgeKey.count))
            let leaving = edges[node]
            if leaving.count == 1, let only = leaving.first {
                edgeKey.append(only.key)
                edgeChild.append(only.child)
            } else if leaving.count > 1 {
                for edge in leaving.sorted(by: { $0.key < $1.key }) {
                    edgeKey.append(edge.key)
                    edgeChild.append(edge.child)
                }
            }
        }
        edgeStart.append(Int32(edgeKey.count))
        self.candidates = candidates
        self.caseSensitive = caseSensitive
        self.nodes = nodes
        self.typedTypes = typedTypes
        self.lists = lists
        self.edgeStart = edgeStart
        self.edgeKey = edgeKey
        self.edgeChild = edgeChild
        self.slots = builder.slots
        self.keyBytes = builder.keyBytes
        self.slotMask = builder.slots.count - 1
    }

    /// ``hash(_:parent:fold:)`` of `bytes[range]`.
    static func hash(_ bytes: ContiguousArray<UInt8>, _ range: Range<Int>, parent: Int, fold: Bool = false) -> (hash: Int, isASCII: Bool) {
        hash(bytes.span.extracting(range), parent: parent, fold: fold)
    }

    /// A hash of a key's UTF-8, seeded with the parent node; with `fold`, of its bytes
    /// ASCII-lowercased; and whether they are all ASCII. Read eight bytes at a time (one
    /// load: the compiler joins a word's eight byte reads), folded in the word
    /// (``ASCII/lowercased(word:)``), each word multiplied in, the result mixed at the end
    /// so that every byte moves the low bits a slot is taken from.
    @inline(__always)
    static func hash(_ key: Span<UInt8>, parent: Int, fold: Bool = false) -> (hash: Int, isASCII: Bool) {
        var h = UInt64(truncatingIfNeeded: parent) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(key.count)
        var bits: UInt64 = 0
        var i = 0
        while i &+ 8 <= key.count {
            let w = word(key, at: i, fold: fold)
            bits |= w
            h = (h ^ w) &* 0x9E37_79B9_7F4A_7C15
            h ^= h >> 32
            i &+= 8
        }
        if i < key.count {
            let w = tailWord(key, from: i, fold: fold)
            bits |= w
            h = (h ^ w) &* 0x9E37_79B9_7F4A_7C15
        }
        h ^= h >> 33
        h &*= 0xFF51_AFD7_ED55_8CCD
        h ^= h >> 33
        return (Int(truncatingIfNeeded: h), bits & 0x8080_8080_8080_8080 == 0)
    }

    /// Bytes `i..<i + 8` of `key` as a little-endian word, ASCII-lowercased with `fold`.
    @inline(__always)
    static func word(_ key: Span<UInt8>, at i: Int, fold: Bool) -> UInt64 {
        let w = ASCII.word(key, at: i)
        return fold ? ASCII.lowercased(word: w) : w
    }

    /// Bytes `i...` of `key` (fewer than eight) in one word, folded as ``word(_:at:fold:)``
    /// folds: the eight bytes ending the key when it has that many (overlapping the last
    /// word read), else two overlapping reads of four or two bytes, or the one byte. Equal
    /// keys of one length give equal words.
    @inline(__always)
    static func tailWord(_ key: Span<UInt8>, from i: Int, fold: Bool) -> UInt64 {
        let n = key.count
        if n >= 8 { return word(key, at: n &- 8, fold: fold) }
        var w: UInt64
        if n &- i >= 4 {
            w = UInt64(bytes(key, at: i, 4)) | UInt64(bytes(key, at: n &- 4, 4)) << 32
        } else if n &- i >= 2 {
            w = UInt64(bytes(key, at: i, 2)) | UInt64(bytes(key, at: n &- 2, 2)) << 16
        } else {
            w = UInt64(key[i])
        }
        return fold ? ASCII.lowercased(word: w) : w
    }

    /// `count` (2 or 4) bytes of `key` from `i`, little-endian: one load once inlined.
    @inline(__always)
    private static func bytes(_ key: Span<UInt8>, at i: Int, _ count: Int) -> UInt32 {
        let part = key.extracting(i..<(i &+ count))
        var w: UInt32 = 0
        for k in 0..<count { w |= UInt32(part[k]) << UInt32(8 &* k) }
        return w
    }

    /// The child reached from `node` by the literal `segment`, or -1. Keys are stored
    /// lowercased unless the trie is case-sensitive; a segment is then compared
    /// lowercased: ASCII folded as it is read, a segment with other bytes lowercased as
    /// `String.lowercased()` lowers the keys (rare: a copy of that segment only).
    @inline(__always)
    func literalChild(_ node: Int, _ segment: Span<UInt8>) -> Int {
        let fold = !caseSensitive
        let (hash, isASCII) = Self.hash(segment, parent: node, fold: fold)
        if fold, !isASCII {
            var raw: [UInt8] = []
            raw.reserveCapacity(segment.count)
            for i in segment.indices { raw.append(segment[i]) }
            let lowered = ContiguousArray(String(decoding: raw, as: UTF8.self).lowercased().utf8)
            return probe(node, lowered.span, from: Self.hash(lowered.span, parent: node).hash, fold: false)
        }
        return probe(node, segment, from: hash, fold: fold)
    }

    /// The child whose key is `segment` (ASCII-lowercased with `fold`), looked for from the
    /// slot of `hash`.
    @inline(__always)
    private func probe(_ node: Int, _ segment: Span<UInt8>, from hash: Int, fold: Bool) -> Int {
        var slot = hash & slotMask
        while true {
            let entry = slots[slot]
            if entry.parent < 0 { return -1 }
            if Int(entry.parent) == node && keyEquals(entry, segment, fold: fold) { return Int(entry.child) }
            slot = (slot + 1) & slotMask
        }
    }

    /// The child reached from `node` by the literal `key`, or -1.
    func literalChild(_ node: Int, _ key: String) -> Int {
        let bytes = ContiguousArray(key.utf8)
        return literalChild(node, bytes.span)
    }

    @inline(__always)
    private func keyEquals(_ entry: Slot, _ segment: Span<UInt8>, fold: Bool) -> Bool {
        let start = Int(entry.keyStart), end = Int(entry.keyEnd)
        guard end - start == segment.count else { return false }
        // A word at a time, as the key was hashed (keys are stored folded already).
        let key = keyBytes.span.extracting(start..<end)
        var i = 0
        while i &+ 8 <= key.count {
            if Self.word(key, at: i, fold: false) != Self.word(segment, at: i, fold: fold) { return false }
            i &+= 8
        }
        return i == key.count || Self.tailWord(key, from: i, fold: false) == Self.tailWord(segment, from: i, fold: fold)
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
    package var shapeGroups: [[Int]] {
        (nodes.indices.map(terminals) + nodes.indices.map(wildcards)).filter { $0.count > 1 }.map { $0.map { Int($0) } }
    }

    /// Number of nodes, for diagnostics and benchmarks.
    package var nodeCount: Int { nodes.count }

    /// The trie as it grows, one candidate at a time: its nodes, its literal edges already
    /// in the open-addressing table the product looks them up in, and what ends at each
    /// node as (node, item) pairs, grouped when frozen. Flat, so that building a
    /// 10,000-route trie allocates a few arrays rather than a dictionary and three arrays
    /// per node.
    struct Builder {
        var nodes = [Node()]
        var edges: [(parent: Int32, child: Int32, key: String)] = []
        var slots = [Slot](repeating: .empty, count: 8)
        var keyBytes: ContiguousArray<UInt8> = []
        var terminals: [(Int32, Int32)] = []
        var wildcards: [(Int32, Int32)] = []
        var typedTypes: [(Int32, ParamType)] = []

        private mutating func newNode() -> Int32 {
            nodes.append(Node())
            return Int32(nodes.count - 1)
        }

        mutating func insert(_ candidate: RouteCandidate, at index: Int32) {
            var current: Int32 = 0
            for matcher in candidate.segments {
                let node = Int(current)
                switch matcher {
                case .literal(let key):
                    current = literalChild(of: current, key)
                case .param(_, let type) where type.isTyped:
                    typedTypes.append((current, type))
                    if nodes[node].typedChild < 0 { nodes[node].typedChild = newNode() }
                    current = nodes[node].typedChild
                case .param:
                    if nodes[node].stringChild < 0 { nodes[node].stringChild = newNode() }
                    current = nodes[node].stringChild
                case .wildcard:
                    wildcards.append((current, index))
                    return
                }
            }
            terminals.append((current, index))
        }

        /// The child of `parent` by the literal `key`, added when new.
        private mutating func literalChild(of parent: Int32, _ key: String) -> Int32 {
            let start = keyBytes.count
            keyBytes += key.utf8
            let key32 = Int32(start)..<Int32(keyBytes.count)
            let mask = slots.count - 1
            var slot = RouteTrie.hash(keyBytes, start..<keyBytes.count, parent: Int(parent)).hash & mask
            while slots[slot].parent >= 0 {
                let entry = slots[slot]
                if entry.parent == parent, keyBytes[Int(entry.keyStart)..<Int(entry.keyEnd)] == keyBytes[start...] {
                    keyBytes.removeSubrange(start...)
                    return entry.child
                }
                slot = (slot + 1) & mask
            }
            let child = newNode()
            slots[slot] = Slot(parent: parent, child: child, keyStart: key32.lowerBound, keyEnd: key32.upperBound)
            edges.append((parent, child, key))
            // At most half full, so that a probe ends soon.
            if edges.count * 2 > slots.count { rehash(size: slots.count * 2) }
            return child
        }

        private mutating func rehash(size: Int) {
            var table = [Slot](repeating: .empty, count: size)
            for entry in slots where entry.parent >= 0 {
                var slot = RouteTrie.hash(keyBytes, Int(entry.keyStart)..<Int(entry.keyEnd), parent: Int(entry.parent)).hash & (size - 1)
                while table[slot].parent >= 0 { slot = (slot + 1) & (size - 1) }
                table[slot] = entry
            }
            slots = table
        }
    }

    /// Items grouped by a small integer key (a node), each group in the order the items
    /// came: a counting sort.
    struct Grouped<Item> {
        private var start: [Int32]
        private var items: [Item]

        init(_ pairs: [(Int32, Item)], groups: Int) {
            var start = [Int32](repeating: 0, count: groups + 1)
            for (group, _) in pairs { start[Int(group) + 1] += 1 }
            for g in 0..<groups { start[g + 1] += start[g] }
            var next = start
            var placed = [Item?](repeating: nil, count: pairs.count)
            for (group, item) in pairs {
                placed[Int(next[Int(group)])] = item
                next[Int(group)] += 1
            }
            self.start = start
            self.items = placed.map { $0! }
        }

        subscript(group: Int) -> ArraySlice<Item> { items[Int(start[group])..<Int(start[group + 1])] }
    }
}
