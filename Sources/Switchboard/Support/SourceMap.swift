/// Where the values of a parsed JSON document are in its bytes: kept by
/// ``JSONParser/parseWithSourceMap(_:)`` while it parses, read when a diagnostic needs
/// the line and column of its JSON pointer.
///
/// ```swift
/// let (document, map) = try JSONParser.parseWithSourceMap(bytes)
/// map.position(of: "/routes/3/pattern", in: document)  // line 41, column 18
/// ```
package struct SourceMap: Sendable {
    /// A place in the file, both 1-based; the column counts characters (Unicode
    /// scalars), as editors and GitHub's annotations do.
    package typealias Position = SourcePosition

    private let bytes: [UInt8]
    /// The byte offset where each value starts, in document order.
    private let offsets: [Int32]
    /// How many values each one spans, itself included (1 for a scalar).
    private let sizes: [Int32]
    /// The byte offset of every line's start.
    private let lineStarts: [Int]
    /// How many characters start before each block of ``blockSize`` bytes, so that a
    /// column costs at most one block's scan even on a minified file's one long line.
    private let charactersBeforeBlock: [Int32]
    private static let blockSize = 64

    init(bytes: [UInt8], offsets: [Int32], sizes: [Int32]) {
        self.bytes = bytes
        self.offsets = offsets
        self.sizes = sizes
        var starts = [0]
        var blocks: [Int32] = []
        blocks.reserveCapacity(bytes.count / Self.blockSize + 1)
        var characters: Int32 = 0
        for (i, b) in bytes.enumerated() {
            if i % Self.blockSize == 0 { blocks.append(characters) }
            if b == UInt8(ascii: "\n") { starts.append(i + 1) }
            if !Self.isContinuation(b) { characters += 1 }
        }
        blocks.append(characters)
        self.lineStarts = starts
        self.charactersBeforeBlock = blocks
    }

    /// The position of the value `pointer` names in `document` (the document this map
    /// was made with); for a pointer to something absent (a missing field), the position
    /// of the deepest value on its way that exists.
    package func position(of pointer: String, in document: JSONValue) -> Position? {
        positions(of: [pointer], in: document)[0]
    }

    /// The positions of many pointers, sharing the walk: each container's children are
    /// located once, so a diagnostic on every one of 40,000 routes costs no more than one.
    package func positions(of pointers: [String], in document: JSONValue) -> [Position?] {
        guard !offsets.isEmpty else { return pointers.map { _ in nil } }
        var children: [Int: [Int]] = [:]
        return pointers.map { pointer in
            var node = document
            var slot = 0
            for token in Self.tokens(pointer) {
                guard let (child, value) = step(slot, node, token, children: &children) else { break }
                (slot, node) = (child, value)
            }
            return position(at: slot)
        }
    }

    /// The positions of every item of the array `pointer` names, in one walk (asking
    /// for each item alone would step over all the ones before it every time).
    package func positions(ofItemsOf pointer: String, in document: JSONValue) -> [Position] {
        guard let (slot, node) = locate(pointer, in: document), case .array(let items) = node else { return [] }
        return childSlots(of: slot, count: items.count).compactMap(position(at:))
    }

    /// The slot and value `pointer` names, when it exists.
    private func locate(_ pointer: String, in document: JSONValue) -> (Int, JSONValue)? {
        var node = document
        var slot = 0
        var children: [Int: [Int]] = [:]
        for token in Self.tokens(pointer) {
            guard let (child, value) = step(slot, node, token, children: &children) else { return nil }
            (slot, node) = (child, value)
        }
        return (slot, node)
    }

    /// The slot and value of `token` under the value at `slot`; `children` keeps the
    /// slots of the children of each container stepped into.
    private func step(_ slot: Int, _ node: JSONValue, _ token: String, children: inout [Int: [Int]]) -> (Int, JSONValue)? {
        let (k, value, count): (Int, JSONValue, Int)
        switch node {
        case .object(let members):
            guard let index = members.firstIndex(where: { $0.key == token }) else { return nil }
            (k, value, count) = (index, members[index].value, members.count)
        case .array(let items):
            guard let index = Int(token), items.indices.contains(index) else { return nil }
            (k, value, count) = (index, items[index], items.count)
        default:
            return nil
        }
        let slots = children[slot] ?? childSlots(of: slot, count: count)
        children[slot] = slots
        return slots.indices.contains(k) ? (slots[k], value) : nil
    }

    /// The slots of the `count` children of the container at `slot`: each follows the
    /// one before and all it spans.
    private func childSlots(of slot: Int, count: Int) -> [Int] {
        var slots: [Int] = []
        slots.reserveCapacity(count)
        var child = slot + 1
        for _ in 0..<count where sizes.indices.contains(child) {
            slots.append(child)
            child += Int(sizes[child])
        }
        return slots
    }

    /// The position of the value numbered `slot`.
    private func position(at slot: Int) -> Position? {
        guard offsets.indices.contains(slot) else { return nil }
        return position(ofByte: Int(offsets[slot]))
    }

    /// The position of a byte offset (a parse error's, say).
    package func position(ofByte offset: Int) -> Position {
        let offset = min(max(offset, 0), bytes.count)
        // The last line start at or before the offset.
        var low = 0, high = lineStarts.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if lineStarts[mid] <= offset { low = mid } else { high = mid - 1 }
        }
        return Position(line: low + 1, column: characters(before: offset) - characters(before: lineStarts[low]) + 1)
    }

    /// How many characters start before byte `offset`.
    private func characters(before offset: Int) -> Int {
        let block = offset / Self.blockSize
        return bytes[block * Self.blockSize..<offset].reduce(Int(charactersBeforeBlock[block])) {
            $0 + (Self.isContinuation($1) ? 0 : 1)
        }
    }

    /// The position of a byte offset in `bytes`, for text that was not parsed with a map.
    package static func position(ofByte offset: Int, in bytes: [UInt8]) -> Position {
        var line = 1, column = 1
        for b in bytes.prefix(max(offset, 0)) {
            if b == UInt8(ascii: "\n") {
                (line, column) = (line + 1, 1)
            } else if !isContinuation(b) {
                column += 1
            }
        }
        return Position(line: line, column: column)
    }

    /// Characters, not bytes: UTF-8 continuation bytes do not start one.
    private static func isContinuation(_ byte: UInt8) -> Bool { byte & 0xC0 == 0x80 }

    /// The reference tokens of an RFC 6901 pointer, `~1` and `~0` undone.
    static func tokens(_ pointer: String) -> [String] {
        pointer.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map {
            String($0).replacing("~1", with: "/").replacing("~0", with: "~")
        }
    }
}
