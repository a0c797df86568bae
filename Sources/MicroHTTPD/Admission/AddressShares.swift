import SystemSupport

/// Open connections by the block of addresses they come from (``ClientBlock``: a /24 or
/// a /64), each block at most `limit`: an IPv6 client holds a /64 and more, and one
/// address per connection would give it every slot. A trusted proxy's connections are
/// not counted here: one carries many clients, each counted by its own block where
/// requests are.
final class AddressShares: Sendable {
    let limit: Int
    private let open = Locked<[ClientBlock: Int]>([:])

    init(limit: Int) { self.limit = max(1, limit) }

    /// Whether a connection of `share` may be accepted (checked as it is accepted; it is
    /// counted once libmicrohttpd has made it, ``opened(_:)``).
    func admits(_ share: ClientBlock) -> Bool { open.withLock { ($0[share] ?? 0) < limit } }

    /// Counts a connection libmicrohttpd has made; false when it takes its share past the
    /// limit. Two threads can each admit the share's last slot before either counts it:
    /// the one counted second is then cut off (``connectionNotified``).
    func opened(_ share: ClientBlock) -> Bool {
        open.withLock { counts in
            counts[share, default: 0] += 1
            return counts[share, default: 0] <= limit
        }
    }

    func closed(_ share: ClientBlock) {
        open.withLock { counts in
            guard let count = counts[share] else { return }
            counts[share] = count > 1 ? count - 1 : nil
        }
    }

    /// Connections open from `share`.
    func count(_ share: ClientBlock) -> Int { open.withLock { $0[share] ?? 0 } }
}
