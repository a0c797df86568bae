/// A pool of places (connections, held polls and streams, expensive requests) shared
/// max-min fairly among the holders (client blocks) that hold some of it now. While the pool
/// has room, anyone takes a place, up to `perHolder`: a holder alone may use most of it.
/// Once it is full, a holder below its fair share (the capacity over the holders, itself
/// counted) is still granted one, taken from the holder that holds the most when that one
/// is above the fair share: the caller makes that holder give a place back (closes its idle
/// connection, answers its newest poll...). So a new holder always gets its share, and
/// under pressure the largest holder gives way first. A value, kept under its owner's lock;
/// every operation is O(1) (holders are bucketed by how many places they hold, so the
/// largest is found without a scan).
package struct FairShares<Holder: Hashable & Sendable>: Sendable {
    /// What a request for a place gets.
    package enum Verdict: Equatable, Sendable {
        /// A place: there was room.
        case granted
        /// A place, once `Holder` gives one back: the pool is full, the asker holds less
        /// than its fair share, and `Holder` holds the most, more than its share.
        case grantedFrom(Holder)
        /// No place: `atShare` when the asker holds its share (or `perHolder`) already; else
        /// the pool is full and no holder is above its share.
        case refused(atShare: Bool)
    }

    package let capacity: Int
    /// The most one holder may hold, whatever the room.
    package let perHolder: Int
    package private(set) var total = 0
    private var held: [Holder: Int] = [:]
    /// Holders by how many places they hold; `largest` is the highest count with a holder.
    private var byCount: [Int: Set<Holder>] = [:]
    private var largest = 0

    package init(capacity: Int, perHolder: Int = .max) {
        self.capacity = max(1, capacity)
        self.perHolder = max(1, perHolder)
    }

    /// Holders that hold a place now.
    package var holders: Int { held.count }

    /// Places `holder` holds.
    package func places(of holder: Holder) -> Int { held[holder] ?? 0 }

    /// The fair share of `holder`: the capacity over the holders, counting it among them.
    package func fairShare(of holder: Holder) -> Int {
        max(1, capacity / (held.count + (held[holder] == nil ? 1 : 0)))
    }

    /// Whether `holder` may take a place now, and from whom; nothing is counted.
    package func verdict(for holder: Holder) -> Verdict {
        let mine = held[holder] ?? 0
        if mine >= perHolder { return .refused(atShare: true) }
        if total < capacity { return .granted }
        let share = fairShare(of: holder)
        if mine < share && largest > share, let giver = byCount[largest]?.first { return .grantedFrom(giver) }
        return .refused(atShare: mine >= share)
    }

    /// Asks for a place and counts it unless refused (a place granted from another holder is
    /// counted now; the giver's is uncounted when it gives it back, ``release(_:)``).
    package mutating func take(_ holder: Holder) -> Verdict {
        let verdict = verdict(for: holder)
        if case .refused = verdict { return verdict }
        add(holder)
        return verdict
    }

    /// Counts a place `holder` holds.
    package mutating func add(_ holder: Holder) {
        let count = held[holder] ?? 0
        move(holder, from: count, to: count + 1)
        total += 1
    }

    /// A place `holder` held is given back.
    package mutating func release(_ holder: Holder) {
        guard let count = held[holder] else { return }
        move(holder, from: count, to: count - 1)
        total -= 1
    }

    private mutating func move(_ holder: Holder, from old: Int, to new: Int) {
        if old > 0 {
            byCount[old]?.remove(holder)
            if byCount[old]?.isEmpty == true { byCount[old] = nil }
        }
        if new > 0 {
            held[holder] = new
            byCount[new, default: []].insert(holder)
            largest = max(largest, new)
        } else {
            held[holder] = nil
        }
        // A count moves by one: when the largest bucket empties, the next is one below.
        while largest > 0 && byCount[largest] == nil { largest -= 1 }
    }
}
