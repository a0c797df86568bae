/// A regex for `regex` params, matched against a whole value in time linear in the
/// value's length (a Pike VM over Unicode scalars), with patterns that could be slow
/// in clients' backtracking engines refused at load (see ``RegexParser``).
///
/// ```swift
/// let regex = try SafeRegex("[a-z]+-[0-9]{4}")
/// regex.matches("sale-2026") // true
/// ```
package struct SafeRegex: Sendable, Hashable, CustomStringConvertible {
    /// Programs larger than this are refused.
    package static let maxProgramSize = 4096
    /// Values longer than this many scalars never match.
    package static let maxInputLength = 1024

    enum Instruction: Sendable, Equatable {
        case scalar(UInt32)
        case any
        case set(ScalarSet)
        case split(Int, Int)
        case jump(Int)
        case assertStart
        case assertEnd
        case match
    }

    /// The pattern as written.
    package let pattern: String
    let program: [Instruction]

    package var description: String { pattern }

    package init(_ pattern: String) throws(RegexError) {
        let node = try RegexParser.parse(pattern)
        var program: [Instruction] = []
        try Self.emit(node, into: &program)
        program.append(.match)
        self.pattern = pattern
        self.program = program
    }

    package static func == (lhs: SafeRegex, rhs: SafeRegex) -> Bool { lhs.pattern == rhs.pattern }
    package func hash(into hasher: inout Hasher) { hasher.combine(pattern) }

    private static func emit(_ node: RegexNode, into p: inout [Instruction]) throws(RegexError) {
        guard p.count <= maxProgramSize else { throw .tooLarge }
        switch node {
        case .empty: break
        case .scalar(let s): p.append(.scalar(s.value))
        case .any: p.append(.any)
        case .set(let set): p.append(.set(set))
        case .startAnchor: p.append(.assertStart)
        case .endAnchor: p.append(.assertEnd)
        case .concat(let nodes):
            for n in nodes { try emit(n, into: &p) }
        case .alternation(let branches):
            var jumps: [Int] = []
            for (k, branch) in branches.enumerated() {
                if k < branches.count - 1 {
                    let split = p.count
                    p.append(.split(split + 1, -1))
                    try emit(branch, into: &p)
                    jumps.append(p.count)
                    p.append(.jump(-1))
                    p[split] = .split(split + 1, p.count)
                } else {
                    try emit(branch, into: &p)
                }
            }
            for j in jumps { p[j] = .jump(p.count) }
        case .repetition(let inner, let min, let max):
            for _ in 0..<min { try emit(inner, into: &p) }
            if let max {
                var exits: [Int] = []
                for _ in min..<max {
                    exits.append(p.count)
                    p.append(.split(p.count + 1, -1))
                    try emit(inner, into: &p)
                }
                for e in exits { p[e] = .split(e + 1, p.count) }
            } else {
                let loop = p.count
                p.append(.split(loop + 1, -1))
                try emit(inner, into: &p)
                p.append(.jump(loop))
                p[loop] = .split(loop + 1, p.count)
            }
        }
        guard p.count <= maxProgramSize else { throw .tooLarge }
    }

    /// Whether the whole of `value` matches.
    package func matches(_ value: String) -> Bool {
        let input = Array(value.unicodeScalars)
        guard input.count <= Self.maxInputLength else { return false }
        var current = ThreadList(capacity: program.count)
        var next = ThreadList(capacity: program.count)
        addThread(&current, 0, position: 0, count: input.count)
        for (position, scalar) in input.enumerated() {
            if current.isEmpty { return false }
            next.clear()
            for pc in current.items {
                switch program[pc] {
                case .scalar(let s): if s == scalar.value { addThread(&next, pc + 1, position: position + 1, count: input.count) }
                case .any: addThread(&next, pc + 1, position: position + 1, count: input.count)
                case .set(let set): if set.contains(scalar.value) { addThread(&next, pc + 1, position: position + 1, count: input.count) }
                default: break
                }
            }
            swap(&current, &next)
        }
        return current.items.contains { program[$0] == .match }
    }

    /// Adds `pc` and everything reachable from it without consuming input (iteratively:
    /// a long chain of optional parts must not grow the call stack).
    private func addThread(_ list: inout ThreadList, _ pc: Int, position: Int, count: Int) {
        var pending = [pc]
        while let pc = pending.popLast() {
            guard list.insert(pc) else { continue }
            switch program[pc] {
            case .jump(let target): pending.append(target)
            case .split(let a, let b): pending.append(b); pending.append(a)
            case .assertStart: if position == 0 { pending.append(pc + 1) }
            case .assertEnd: if position == count { pending.append(pc + 1) }
            default: break
            }
        }
    }
}

/// A sparse set of program counters, in insertion order.
private struct ThreadList {
    var items: [Int] = []
    var present: [Bool]

    init(capacity: Int) {
        present = Array(repeating: false, count: capacity)
        items.reserveCapacity(capacity)
    }

    var isEmpty: Bool { items.isEmpty }

    mutating func insert(_ pc: Int) -> Bool {
        if present[pc] { return false }
        present[pc] = true
        items.append(pc)
        return true
    }

    mutating func clear() {
        for pc in items { present[pc] = false }
        items.removeAll(keepingCapacity: true)
    }
}
