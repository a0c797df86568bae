import Foundation

/// How many distinct values were seen, in bounded memory whatever their number: exactly
/// (by their 64-bit hashes) up to ``exactLimit``, then estimated by HyperLogLog (Flajolet
/// et al., 2007) with 4,096 registers, a standard error of about 1.6%. At most about
/// 100 KiB: the hashes' set, then the registers alone. `traffic` counts a log's clients
/// with it.
struct DistinctCount {
    /// Values counted exactly; past it, estimated.
    static let exactLimit = 4096
    private static let bits = 12
    /// The values' hashes while they are few; nil once the registers count.
    private var exact: Set<Int>? = []
    private var registers: [UInt8] = []
    /// Whether any value was added.
    private(set) var isEmpty = true

    /// Whether ``estimate`` is an exact count.
    var isExact: Bool { exact != nil }

    mutating func add(_ value: some Hashable) {
        isEmpty = false
        let hash = value.hashValue
        guard exact != nil else { return register(hash) }
        exact!.insert(hash)
        if exact!.count > Self.exactLimit {
            registers = [UInt8](repeating: 0, count: 1 << Self.bits)
            for hash in exact! { register(hash) }
            exact = nil
        }
    }

    private mutating func register(_ value: Int) {
        let hash = UInt64(bitPattern: Int64(value))
        let index = Int(hash >> UInt64(64 - Self.bits))
        // The position of the first 1 in the remaining bits (1-based), capped at their width.
        let rest = hash << UInt64(Self.bits)
        let rank = UInt8(min(rest.leadingZeroBitCount, 64 - Self.bits) + 1)
        if rank > registers[index] { registers[index] = rank }
    }

    var estimate: Int {
        if let exact { return exact.count }
        let m = Double(registers.count)
        var sum = 0.0, zeros = 0
        for r in registers {
            sum += 1 / Double(UInt64(1) << UInt64(r))
            if r == 0 { zeros += 1 }
        }
        let raw = 0.7213 / (1 + 1.079 / m) * m * m / sum
        if raw <= 2.5 * m, zeros > 0 {
            return Int((m * log(m / Double(zeros))).rounded())
        }
        return Int(raw.rounded())
    }
}
