/// Counts of the most frequent keys of a stream in bounded memory: the space-saving
/// algorithm (Metwally, Agrawal and El Abbadi, 2005). Up to `capacity` distinct keys are
/// counted exactly; past it, a new key takes the place of the least counted one and
/// inherits its count as its possible overcount (`error`). Any key counted more than
/// total / capacity times is in the table, and its count is at most `error` too high.
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
    }

    let capacity: Int
    private(set) var heap: [Entry] = []
    private var slots: [Key: Int] = [:]
    /// Whether a key was ever replaced: counts are then estimates (exact when `error` is 0).
    private(set) var evicted = false

    init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
    }

    var count: Int { heap.count }

    /// Adds `weight` to `key`'s count and returns its entry's value; `make` makes the value
    /// of a key not in the table (called only then).
    @discardableResult
    mutating func add(_ key: Key, weight: Int = 1, make: () -> Value) -> Value {
        if let slot = slots[key] {
            heap[slot].count += weight
            let value = heap[slot].value
            siftDown(slot)
            return value
        }
        let value = make()
        if heap.count < capacity {
            heap.append(Entry(key: key, count: weight, error: 0, value: value))
            slots[key] = heap.count - 1
            siftUp(heap.count - 1)
            return value
        }
        evicted = true
        let least = heap[0]
        slots[least.key] = nil
        heap[0] = Entry(key: key, count: least.count + weight, error: least.count, value: value)
        slots[key] = 0
        siftDown(0)
        return value
    }

    /// The entry of `key`, when it is in the table.
    func entry(_ key: Key) -> Entry? { slots[key].map { heap[$0] } }

    /// The entries, most counted first (ties by smaller error).
    func top(_ n: Int = .max) -> [Entry] {
        Array(heap.sorted { ($0.count, -$0.error) > ($1.count, -$1.error) }.prefix(n))
    }

    private mutating func siftDown(_ start: Int) {
        var i = start
        while true {
            let l = 2 * i + 1, r = l + 1
            var least = i
            if l < heap.count, heap[l].count < heap[least].count { least = l }
            if r < heap.count, heap[r].count < heap[least].count { least = r }
            if least == i { return }
            swapAt(i, least)
            i = least
        }
    }

    private mutating func siftUp(_ start: Int) {
        var i = start
        while i > 0 {
            let parent = (i - 1) / 2
            guard heap[i].count < heap[parent].count else { return }
            swapAt(i, parent)
            i = parent
        }
    }

    private mutating func swapAt(_ a: Int, _ b: Int) {
        heap.swapAt(a, b)
        slots[heap[a].key] = a
        slots[heap[b].key] = b
    }
}
