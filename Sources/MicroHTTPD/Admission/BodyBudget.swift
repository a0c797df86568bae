import SystemSupport

/// The bytes of every request body being received, within one budget shared max-min fairly
/// by client block, as ``FairShares`` shares places: while the budget has room a block may
/// hold up to `perBlock`; once it is full, a block below its fair share (the budget over the
/// blocks receiving bodies, itself counted) is still given room, taken from the block
/// holding the most: that block's newest body gives way (its bytes are let go at once, and
/// its next piece is answered 503). Each body's bytes are counted by its connection's
/// ``RequestDeadlines/Watch``, so a body let go here is never let go twice.
final class BodyBudget: Sendable {
    /// What a piece of a body gets.
    enum Verdict: Equatable {
        case accepted
        /// Its block holds all it may (429).
        case client
        /// The budget is full and no block holds more than its share (503).
        case server
        /// Its body gave way to a block below its share (503).
        case gaveWay
    }

    private struct Body {
        let sequence: UInt64
        /// Held so that its identifier, the key, is not reused while the body is counted.
        let watch: RequestDeadlines.Watch
        var bytes: Int
    }

    private struct Holding {
        var bytes = 0
        var bodies: [ObjectIdentifier: Body] = [:]
    }

    private struct State {
        var total = 0
        var blocks: [ClientBlock: Holding] = [:]
        var sequence: UInt64 = 0
        /// Bodies that gave way, told at their next piece.
        var gaveWay: Set<ObjectIdentifier> = []
    }

    let budget: Int
    let perBlock: Int
    private let state = Locked(State())

    init(budget: Int, perBlock: Int) {
        self.budget = max(1, budget)
        self.perBlock = max(1, perBlock)
    }

    /// Bytes of bodies being received, in all.
    var total: Int { state.withLock { $0.total } }

    /// Counts `size` more bytes of the body `watch`'s connection is receiving for `block`,
    /// or says why not (nothing is counted then).
    func receive(_ size: Int, for watch: RequestDeadlines.Watch, block: ClientBlock) -> Verdict {
        let id = ObjectIdentifier(watch)
        return state.withLock { s in
            if s.gaveWay.remove(id) != nil { return .gaveWay }
            let mine = s.blocks[block]?.bytes ?? 0
            if mine + size > perBlock { return .client }
            if s.total + size > budget {
                let share = budget / (s.blocks.count + (s.blocks[block] == nil ? 1 : 0))
                if mine + size > share { return .client }
                // The block holding the most, above its share, lets its newest body go.
                guard let (giver, holding) = s.blocks.max(by: { $0.value.bytes < $1.value.bytes }), giver != block,
                      holding.bytes > share, let newest = holding.bodies.max(by: { $0.value.sequence < $1.value.sequence }) else {
                    return .server
                }
                Self.forget(newest.key, of: giver, &s)
                s.gaveWay.insert(newest.key)
            }
            s.total += size
            s.blocks[block, default: Holding()].bytes += size
            if s.blocks[block]?.bodies[id] == nil {
                s.sequence += 1
                s.blocks[block]?.bodies[id] = Body(sequence: s.sequence, watch: watch, bytes: 0)
            }
            s.blocks[block]?.bodies[id]?.bytes += size
            return .accepted
        }
    }

    /// The body of `watch`'s connection is over (answered, refused or gone): its bytes are
    /// let go, unless they were already.
    func release(_ watch: RequestDeadlines.Watch, block: ClientBlock) {
        let id = ObjectIdentifier(watch)
        state.withLock { s in
            s.gaveWay.remove(id)
            Self.forget(id, of: block, &s)
        }
    }

    private static func forget(_ id: ObjectIdentifier, of block: ClientBlock, _ s: inout State) {
        guard let body = s.blocks[block]?.bodies.removeValue(forKey: id) else { return }
        s.total -= body.bytes
        s.blocks[block]?.bytes -= body.bytes
        if s.blocks[block]?.bodies.isEmpty == true { s.blocks[block] = nil }
    }
}
