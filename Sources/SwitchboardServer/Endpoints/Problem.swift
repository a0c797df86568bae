import MicroHTTPD
import Switchboard

/// RFC 9457 problem details: `{"type","title","status","detail"}` plus extensions.
struct Problem: Error, Sendable {
    let status: Int
    let title: String
    let detail: String
    var extensions: [JSONValue.Member] = []
    var headers: [(String, String)] = []

    var response: HTTPResponse {
        var members: [JSONValue.Member] = [
            .init("type", .string("about:blank")), .init("title", .string(title)),
            .init("status", .integer(Int64(status))), .init("detail", .string(detail)),
        ]
        members += extensions
        return HTTPResponse(status: status, headers: [("Content-Type", "application/problem+json")] + headers,
                            body: JSONValue.object(members).serialized())
    }

    /// 503 with `Retry-After`: the server could answer, but not now.
    static func unavailable(_ detail: String, retryAfter seconds: Int) -> Problem {
        var problem = Problem(status: 503, title: "Service Unavailable", detail: detail)
        problem.headers = [("Retry-After", "\(seconds)")]
        return problem
    }

    /// 429 with `Retry-After`: this client has taken its share; others are still served.
    static func tooManyRequests(_ detail: String, retryAfter seconds: Int) -> Problem {
        var problem = Problem(status: 429, title: "Too Many Requests", detail: detail)
        problem.headers = [("Retry-After", "\(seconds)")]
        return problem
    }

    static func badRequest(_ detail: String, _ extensions: [JSONValue.Member] = []) -> Problem {
        Problem(status: 400, title: "Bad Request", detail: detail, extensions: extensions)
    }
}
