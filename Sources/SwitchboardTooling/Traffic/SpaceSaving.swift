import Switchboard
/// Counts of the most frequent keys of a stream in bounded memory: the space-saving
/// algorithm (Metwally, Agrawal and El Abbadi, 2005). Up to `capacity` distinct keys are
/// counted exactly; past it, a new key takes the place of the least counted one and
/// inherits its count as its possible overcount (`error`). Any key counted more than
/// total / capacity times is in the table, and its count is at most `error` too high.
///
/// The table is bounded in bytes too (`byteBudget`, as `weigh` sizes an entry): keys of
/// any length cannot make a table of `capacity` entries any size. Past the budget, a new
/// key takes the least counted one's place as past `capacity`; the table may then exceed
/// its budget by at most one entry's size.
///
/// Entries live in a min-heap by count, so the least counted is found at once and a
/// count raised moves down in O(log capacity).
struct SpaceSaving<Key: Hashable, Value> {
    struct Entry {
        var key: Key
        var count: Int
        /// How much of `count` may belong to keys it replaced.
        var error: Int
        var value: Value
        /// Its size as `weigh` gave it.
        var size: Int
    }

    let capacity: Int
    let byteBudget: Int
    /// The bytes the entries weigh, together.
    private(set) var bytes = 0
    private let weigh: (Key, Value) -> Int
    /// Entries stay where they were put (a replaced key's entry is reused); the heap
    /// orders their indices, so moving one in the heap moves two integers, not an entry
    /// and its key's place in `slots`.
    private var entries: [Entry] = []
    private var heap: [Int] = []
    private var place: [Int] = []
    private var slots: [Key: Int] = [:]
    /// Whether a key was ever replaced: counts are then estimates (exact when `error` is 0).
    private(set) var evicted = false

    init(capacity: Int, byteBudget: Int = .max, weigh: @escaping (Key, Value) -> Int = { _, _ in 0 }) {
        precondition(capacity > 0)
        self.capacity = capacity
        self.byteBudget = byteBudget
        self.weigh = weigh
        // Room for a table's worth up front: growing a dictionary of 100,000 keys rehashes
        // each several times.
        slots.reserveCapacity(min(capacity, 1 << 17))
    }

    var count: Int { entries.count }

    /// Adds `weight` to `key`'s count and returns its entry's value; `make` makes the value
    /// of a key not in the table (called only then).
    @discardableResult
    mutating func add(_ key: Key, weight: Int = 1, make: () -> Value) -> Value {
        if let i = slots[key] {
            entries[i].count += weight
            siftDown(place[i])
            return entries[i].value
        }
        let value = make()
        let size = weigh(key, value)
        if entries.count < capacity && (entries.isEmpty || bytes + size <= byteBudget) {
            bytes += size
            entries.append(Entry(key: key, count: weight, error: 0, value: value, size: size))
            let i = entries.count - 1
            slots[key] = i
            heap.append(i)
            place.append(heap.count - 1)
            siftUp(heap.count - 1)
            return value
        }
        evicted = true
        let i = heap[0]
        let least = entries[i].count
        slots[entries[i].key] = nil
        bytes += size - entries[i].size
        entries[i] = Entry(key: key, count: least + weight, error: least, value: value, size: size)
        slots[key] = i
        siftDown(0)
        return value
    }

    /// The entry of `key`, when it is in the table.
    func entry(_ key: Key) -> Entry? { slots[key].map { entries[$0] } }

    /// The entries, most counted first (ties by smaller error).
    func top(_ n: Int = .max) -> [Entry] {
        Array(entries.sorted { ($0.count, -$0.error) > ($1.count, -$1.error) }.prefix(n))
    }

    private mutating func siftDown(_ start: Int) {
        var at = start
        while true {
            let l = 2 * at + 1, r = l + 1
            var least = at
            if l < heap.count, entries[heap[l]].count < entries[heap[least]].count { least = l }
            if r < heap.count, entries[heap[r]].count < entries[heap[least]].count { least = r }
            if least == at { return }
            swapAt(at, least)
            at = least
        }
    }

    private mutating func siftUp(_ start: Int) {
        var at = start
        while at > 0 {
            let parent = (at - 1) / 2
            guard entries[heap[at]].count < entries[heap[parent]].count else { return }
            swapAt(at, parent)
            at = parent
        }
    }

    private mutating func swapAt(_ a: Int, _ b: Int) {
        heap.swapAt(a, b)
        place[heap[a]] = a
        place[heap[b]] = b
    }
}
