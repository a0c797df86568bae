/// The answer for one URL (docs/manifest.md): the body of `GET /v1/resolve`.
public struct Resolution: Sendable {
    public enum Status: String, Sendable, CaseIterable {
        case matched, fallback, external, rejected
    }

    /// The URL as given, as bytes: a result is written without building it as a String.
    package let urlBytes: [UInt8]
    /// The URL as given (bytes that are not UTF-8 replaced by U+FFFD; such a URL is
    /// rejected).
    public var url: String { String(decoding: urlBytes, as: UTF8.self) }
    /// The target's: a target is only ever given results of its status, which its bytes
    /// begin with (``ResultTarget/status``).
    public var status: Status { target.status }
    /// Why the URL was rejected (status `rejected` only).
    public let reason: String?
    /// Params in the contract's order: path, declared query and defaults, other query, injected, web
    /// `url`; for the fallback, the URL as given. Built when asked for: a result's JSON is
    /// written from what they are made of.
    public var params: [JSONValue.Member] {
        if let matched {
            var params: [JSONValue.Member] = []
            matched.forEach { matched, key, source, type in params.append(.init(key, matched.value(source, type, url: urlBytes))) }
            return params
        }
        return status == .fallback ? [.init("url", .string(url))] : []
    }
    /// The param named `name`, as the result JSON has it (a path, query, default or
    /// injected value: a string, a number for an `int`, any JSON for an injected constant);
    /// nil when the result has none of that name.
    public func param(_ name: String) -> JSONValue? {
        params.first { $0.key == name }?.value
    }

    /// The param named `name` when it is a string (`slug`, `uuid`, `enum`, `regex` and
    /// untyped params, wildcards).
    public func string(_ name: String) -> String? {
        param(name)?.stringValue
    }

    /// The param named `name` when it is an integer (an `int` param, or an injected one).
    public func int(_ name: String) -> Int? {
        if case .integer(let value)? = param(name) { return Int(exactly: value) }
        return nil
    }

    /// What a matched result's params are made of.
    let matched: MatchedParams?
    /// The decoded fragment, whenever an internal URL has `#`.
    public var fragment: String? { fragmentBytes.map { String(decoding: $0, as: UTF8.self) } }
    /// The decoded fragment's UTF-8 bytes, as ``InternalURL/fragmentBytes`` holds them.
    let fragmentBytes: [UInt8]?
    /// With `explain`: how the answer was reached.
    public var explanation: Explanation? { explanationBox?.value }
    /// The explanation behind one reference: most resolutions have none, and its five
    /// fields inline made every Resolution (copied on return) half as large again.
    private let explanationBox: ExplanationBox?
    /// Whether `urlBytes` are plain (``URLScope/classify(_:plain:)``): written as a JSON
    /// string without a look for what to escape.
    let urlIsPlain: Bool
    /// Route, destination and presentation, shared with the manifest (``ResultTarget/rejected``,
    /// which has none, when rejected).
    let target: ResultTarget

    /// The matched route's name and the pattern (or alias) that matched.
    public var route: (name: String, pattern: String)? { target.route }
    /// The matched route's index in the manifest's routes, nil unless matched.
    package var routeIndex: Int? { target.routeIndex >= 0 ? target.routeIndex : nil }
    /// The redirect routes followed to reach the route (or the fallback), in order.
    package let redirects: RedirectHops
    public var destination: String? { target.destination }
    public var presentation: Presentation? { status == .rejected ? nil : target.presentation }

    /// `explained`: the explanation, boxed by the caller. (An `Explanation?` parameter
    /// would be copied and destroyed through Optional's generic value witnesses on every
    /// resolution, though most have none.)
    init(url: [UInt8], plain: Bool = false, reason: String? = nil, target: ResultTarget, matched: MatchedParams? = nil,
         fragment: [UInt8]? = nil, redirects: RedirectHops = RedirectHops(), explained: ExplanationBox? = nil) {
        self.redirects = redirects
        self.urlBytes = url
        self.urlIsPlain = plain
        self.reason = reason
        self.target = target
        self.matched = matched
        self.fragmentBytes = fragment
        self.explanationBox = explained
    }
}

extension Resolution {
    /// The same result with another explanation.
    func replacingExplanation(_ explanation: Explanation) -> Resolution {
        Resolution(url: urlBytes, plain: urlIsPlain, reason: reason, target: target, matched: matched,
                   fragment: fragmentBytes, redirects: redirects, explained: ExplanationBox(explanation))
    }
}

final class ExplanationBox: Sendable {
    let value: Explanation
    init(_ value: Explanation) { self.value = value }
}

/// An explanation being recorded while a URL is resolved: a reference, so resolving
/// without one passes nil, not an empty `Explanation?`.
final class ExplanationRecord {
    var value: Explanation
    init(_ value: Explanation) { self.value = value }
}

/// How a resolution was reached: the normalized input and every candidate route tried,
/// in order, with why it was taken or refused.
public struct Explanation: Sendable {
    public struct Step: Sendable, Equatable {
        public var route: String
        public var pattern: String
        /// The expansion of `pattern` tried (its optional groups kept or dropped), as
        /// ``CompiledManifest/TableEntry/path`` writes it, so it names one row of the table.
        public var expansion: String
        /// The path the route was tried on (differs from the input after a redirect).
        public var path: String
        /// `matched`, `refused` or `redirected`.
        public var outcome: String
        /// Why it was refused, or where it redirected.
        public var detail: String?
    }

    public var host: String?
    public var path: String?
    public var segments: [String] = []
    public var steps: [Step] = []
    /// A note on the outcome: the rejection reason, `external host`, `no route matched`.
    public var note: String?
    /// With `explain=near`: routes that almost matched and were never tried.
    package var near: [NearMiss]? = nil
}

/// The redirect routes a resolution followed, by index: up to 8 hops
/// (``CompiledManifest/maxRedirects``), 16 bits each (a manifest has at most 50,000
/// routes) in two words, so a resolution carries them without an allocation.
package struct RedirectHops: Sendable, Equatable, Sequence {
    private var low: UInt64 = 0
    private var high: UInt64 = 0
    package private(set) var count: Int = 0

    package init() {}

    mutating func append(_ route: Int) {
        guard count < 8, route >= 0, route <= 0xFFFF else { return }
        let shift = UInt64((count % 4) * 16)
        if count < 4 { low |= UInt64(route) << shift } else { high |= UInt64(route) << shift }
        count += 1
    }

    /// Walks the hops without an allocation (an `AnyIterator` would box its state on every
    /// redirected request the server counts).
    package struct Iterator: IteratorProtocol {
        fileprivate let hops: RedirectHops
        fileprivate var index = 0

        package mutating func next() -> Int? {
            guard index < hops.count else { return nil }
            defer { index += 1 }
            let word = index < 4 ? hops.low : hops.high
            return Int((word >> UInt64((index % 4) * 16)) & 0xFFFF)
        }
    }

    package func makeIterator() -> Iterator { Iterator(hops: self) }
}
