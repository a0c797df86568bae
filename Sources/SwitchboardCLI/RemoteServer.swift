import ArgumentParser
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Switchboard
import SystemSupport

/// A running Switchboard reached over HTTP: `validate --server`, `diff` with a URL.
struct RemoteServer {
    let base: String

    init(_ base: String) throws {
        guard let url = URL(string: base), url.scheme == "http" || url.scheme == "https" else {
            throw ValidationError("'\(base)' is not a server URL such as http://127.0.0.1:8080")
        }
        self.base = base.hasSuffix("/") ? String(base.dropLast()) : base
    }

    func endpoint(_ path: String) -> URL { URL(string: base + path)! }

    /// The manifest the server has in service (`GET /v1/manifest`), compiled; exits 2
    /// when it cannot be fetched or read.
    func manifest() throws -> CompiledManifest {
        let url = endpoint("/v1/manifest")
        let (status, body) = try Self.send(URLRequest(url: url, timeoutInterval: 30))
        guard status == 200 else {
            printError("switchboard: \(url) answered \(status): \(String(decoding: body.prefix(300), as: UTF8.self))")
            throw ExitCode(2)
        }
        do {
            return try CompiledManifest(json: body)
        } catch {
            printError("switchboard: \(url): \(error)")
            throw ExitCode(2)
        }
    }

    /// A blocking POST of JSON (the command has nothing else to do while it waits).
    func post(_ path: String, body: [UInt8]) throws -> (Int, [UInt8]) {
        var request = URLRequest(url: endpoint(path), timeoutInterval: 30)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(body)
        return try Self.send(request)
    }

    private static func send(_ request: URLRequest) throws -> (Int, [UInt8]) {
        let outcome = Locked<Result<(Int, [UInt8]), any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        URLSession.shared.dataTask(with: request) { data, response, error in
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            outcome.withLock { $0 = error.map { .failure($0) } ?? .success((status, [UInt8](data ?? Data()))) }
            done.signal()
        }.resume()
        done.wait()
        switch outcome.withLock({ $0 }) {
        case .success(let value)?: return value
        case .failure(let error)?:
            printError("switchboard: cannot reach \(request.url?.absoluteString ?? "?"): \(error.localizedDescription)")
            throw ExitCode(2)
        case nil: throw ExitCode(2)
        }
    }
}
