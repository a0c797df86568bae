import CMicroHTTPD
import SystemSupport

/// Open connections by the block of addresses they come from (``ClientBlock``: a /24 or
/// a /64), shared max-min fairly (``FairShares``): an IPv6 client holds a /64 and more, and
/// one address per connection would give it every slot. While connections are free a block
/// may hold up to `perBlock`; once all `capacity` are taken, a block below its fair share
/// still gets one, and the block holding the most gives way: its connection idle the
/// longest (waiting for a head), else the slowest (a body or an answer on the clock the
/// longest), is shut. A trusted proxy's connections are not counted here: one carries many
/// clients, each counted by its own block where requests are.
final class AddressShares: Sendable {
    private struct State {
        var shares: FairShares<ClientBlock>
        /// Each block's open connections, for the one that gives way.
        var open: [ClientBlock: [ObjectIdentifier: RequestDeadlines.Watch]] = [:]
    }

    /// What an accepted connection gets.
    enum Admission: Equatable {
        case admitted
        /// Admitted: a connection of `gaveWay`'s block was shut to make room for it.
        case admittedInPlaceOf(IPAddress)
        /// Refused: its block holds its share (`atShare`), or every connection is taken
        /// and no block holds more than its share.
        case refused(atShare: Bool)
    }

    private let state: Locked<State>

    init(capacity: Int, perBlock: Int) {
        state = Locked(State(shares: FairShares(capacity: capacity, perHolder: perBlock)))
    }

    /// Whether a connection of `block` may be accepted now, checked as it is accepted (it is
    /// counted once libmicrohttpd has made it, ``opened(_:)``); a connection shut to make
    /// room for it is shut here. Two threads can each be admitted the last free connection
    /// before either is counted: the pool then holds one more for a moment, within
    /// libmicrohttpd's own limit (``HTTPDaemon/Configuration/connectionHeadroom``).
    func admit(_ block: ClientBlock) -> Admission {
        state.withLock { s in
            switch s.shares.verdict(for: block) {
            case .granted: return .admitted
            case .refused(let atShare): return .refused(atShare: atShare)
            case .grantedFrom(let giver):
                guard let watch = Self.givingWay(s.open[giver]) else { return .refused(atShare: false) }
                // Forgotten here, so that the next admission picks another; its count goes
                // when libmicrohttpd closes it (``closed(_:block:)``).
                s.open[giver]?[ObjectIdentifier(watch)] = nil
                shutdown(watch.fd, Int32(SHUT_RDWR))
                return .admittedInPlaceOf(watch.peer)
            }
        }
    }

    /// The connection of a block that gives way: the one idle the longest, else the one
    /// whose body or answer has been on the clock the longest; never one whose request is
    /// being answered or held (a held poll's place is counted among the live ones).
    private static func givingWay(_ connections: [ObjectIdentifier: RequestDeadlines.Watch]?) -> RequestDeadlines.Watch? {
        var best: (watch: RequestDeadlines.Watch, idle: Bool, deadline: UInt64)?
        for watch in connections?.values ?? [:].values {
            let deadline = watch.deadline.load(ordering: .relaxed)
            guard deadline != 0 else { continue }
            let phase = watch.phase.load(ordering: .relaxed)
            let idle = phase == RequestDeadlines.Phase.idle.rawValue || phase == RequestDeadlines.Phase.head.rawValue
            if let b = best, (b.idle && !idle) || (b.idle == idle && b.deadline <= deadline) { continue }
            best = (watch, idle, deadline)
        }
        return best?.watch
    }

    /// Counts a connection libmicrohttpd has made; false when it takes its block past its
    /// share (another thread took the last place first): it is then shut before any read.
    func opened(_ watch: RequestDeadlines.Watch, block: ClientBlock) -> Bool {
        state.withLock { s in
            s.shares.add(block)
            s.open[block, default: [:]][ObjectIdentifier(watch)] = watch
            return s.shares.places(of: block) <= s.shares.perHolder
        }
    }

    /// A connection closes: forgotten before libmicrohttpd closes its socket, so a
    /// descriptor is never shut after it was reused.
    func closed(_ watch: RequestDeadlines.Watch, block: ClientBlock) {
        state.withLock { s in
            s.shares.release(block)
            s.open[block]?[ObjectIdentifier(watch)] = nil
            if s.open[block]?.isEmpty == true { s.open[block] = nil }
        }
    }

    /// Connections open from `block`.
    func count(_ block: ClientBlock) -> Int { state.withLock { $0.shares.places(of: block) } }
}
