import Switchboard
import RouteMatching

/// One request read from traffic: the URL a user opened, the context it came with, and
/// how many requests the line stands for (1 but for pre-counted JSON lines).
package struct TrafficRecord: Sendable, Hashable {
    package var url: String
    package var context: ResolveContext
    package var hits: Int
    /// Who sent it, when the line says: an access log's remote address, the `client` of a
    /// JSON line (Switchboard's own log names the client a trusted proxy forwarded).
    package var client: String?
    /// The user agent, when the line says (a combined access log, CloudFront, an ALB, a
    /// JSON line's `userAgent`): what tells a crawler from a person.
    package var agent: String?

    package init(url: String, context: ResolveContext = .empty, hits: Int = 1, client: String? = nil, agent: String? = nil) {
        self.url = url
        self.context = context
        self.hits = hits
        self.client = client
        self.agent = agent
    }

    /// What one resolution answers for: the URL in its context.
    struct Key: Hashable {
        let url: String
        let context: ResolveContext
    }

    var key: Key { Key(url: url, context: context) }
}
