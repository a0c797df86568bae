import SystemSupport
import Foundation
import MicroHTTPD
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A minimal HTTP/1.1 client over a real socket, so tests control every byte sent
/// (duplicate headers, bad framing) and see every byte answered.
enum RawHTTP {
    struct Response {
        let status: Int
        let headers: [(String, String)]
        let body: [UInt8]

        func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }

        var text: String { String(decoding: body, as: UTF8.self) }

        func json() throws -> [String: Any] {
            guard let object = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
                throw RawHTTPError.notJSON(text)
            }
            return object
        }
    }

    enum RawHTTPError: Error {
        case connect(Int32)
        case closedWithoutResponse
        case notJSON(String)
    }

    /// An open connection: send bytes in pieces, then read one response.
    final class Connection {
        let fd: Int32

        /// Connects to `host:port`, from the local address `source` when given (another
        /// loopback address is another client to the server's per-address limits).
        init(port: Int, host: String = "127.0.0.1", source: String? = nil, timeoutSeconds: Int = 10) throws {
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw RawHTTPError.connect(errno) }
            if let source { try use(bind, source, port: 0) }
            var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            try use(connect, host, port: port)
        }

        /// Calls `bind` or `connect` with the IPv4 address `host:port`; closes the socket
        /// and throws when it fails.
        private func use(_ call: (Int32, UnsafePointer<sockaddr>, socklen_t) -> Int32, _ host: String, port: Int) throws {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET, host, &address.sin_addr)
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { call(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard result == 0 else {
                close(fd)
                throw RawHTTPError.connect(errno)
            }
        }

        /// Sends every byte it can; returns how many were sent (fewer when the connection
        /// failed, reset by the server for one).
        @discardableResult
        func send(_ bytes: [UInt8]) -> Int {
            var sent = 0
            while sent < bytes.count {
                let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if n <= 0 { return sent }
                sent += n
            }
            return sent
        }

        /// What arrives next: bytes, `[]` when nothing came within the receive timeout,
        /// nil once the server closed.
        func receive() -> [UInt8]? {
            var buffer = [UInt8](repeating: 0, count: 65536)
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 { return Array(buffer[0..<n]) }
            return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) ? [] : nil
        }

        /// Whether the server has closed the connection (its end read), without waiting.
        var closedByPeer: Bool {
            var byte: UInt8 = 0
            let n = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
            return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
        }

        func response() throws -> Response {
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n <= 0 { break }
                received += buffer[0..<n]
                if let response = parse(received, complete: false) { return response }
            }
            guard let response = parse(received, complete: true) else { throw RawHTTPError.closedWithoutResponse }
            return response
        }

        deinit { close(fd) }
    }

    /// Sends `request` as is and reads until the response is complete or the server closes.
    static func exchange(_ request: [UInt8], port: Int, host: String = "127.0.0.1", timeoutSeconds: Int = 10) throws -> Response {
        let connection = try Connection(port: port, host: host, timeoutSeconds: timeoutSeconds)
        connection.send(request)
        return try connection.response()
    }

    /// A request with `Connection: close`.
    static func request(_ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = [],
                        port: Int) throws -> Response {
        var text = "\(method) \(target) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        // What each POST endpoint takes (POST /v1/validate a cases text, the rest JSON);
        // a test of another type names its own.
        if method == "POST" && !headers.contains(where: { $0.0.lowercased() == "content-type" }) {
            text += "Content-Type: \(target.hasPrefix("/v1/validate") ? "text/plain" : "application/json")\r\n"
        }
        if !body.isEmpty || method == "POST" { text += "Content-Length: \(body.count)\r\n" }
        text += "\r\n"
        return try exchange(Array(text.utf8) + body, port: port)
    }

    static func get(_ target: String, headers: [(String, String)] = [], port: Int) throws -> Response {
        try request("GET", target, headers: headers, port: port)
    }

    /// Parses a response once its head and `Content-Length` body have arrived (or,
    /// when `complete`, whatever arrived before the server closed).
    static func parse(_ bytes: [UInt8], complete: Bool) -> Response? {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = (0...max(0, bytes.count - 4)).first(where: { bytes.count >= 4 && Array(bytes[$0..<$0 + 4]) == separator }) else {
            return nil
        }
        let head = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = head[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { return nil }
        var headers: [(String, String)] = []
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        let body = Array(bytes[(end + 4)...])
        if let length = headers.first(where: { $0.0.lowercased() == "content-length" }).flatMap({ Int($0.1) }) {
            guard body.count >= length else { return complete ? Response(status: status, headers: headers, body: body) : nil }
            return Response(status: status, headers: headers, body: Array(body.prefix(length)))
        }
        return complete || status == 304 ? Response(status: status, headers: headers, body: body) : nil
    }
}

/// Work on a thread of its own: blocking socket calls there never starve Swift
/// concurrency's small cooperative pool (which parallel suites share).
final class BackgroundThread<Result: Sendable>: Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let result = Locked<Result?>(nil)

    init(_ body: @escaping @Sendable () -> Result) {
        let done = self.done, result = self.result
        Thread {
            let value = body()
            result.withLock { $0 = value }
            done.signal()
        }.start()
    }

    /// Waits for the body to finish and returns what it returned.
    func join() -> Result {
        done.wait()
        return result.withLock { $0! }
    }
}
