import ArgumentParser
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import RouteMatching
import Switchboard
import SwitchboardTooling
import SystemSupport

struct VerifyDomainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify-domain",
        abstract: "Check what a phone will find at each origin: its association files, against the manifest and its apps.",
        discussion: """
            Fetches /.well-known/apple-app-site-association and /.well-known/assetlinks.json as Apple's and Google's \
            verifiers do (GET, no redirect followed, HTTPS except on loopback, 10 s) and reports each problem: a status \
            other than 200, a redirect, a content type other than application/json, an AASA over 128 KB, a file that is \
            not JSON, app IDs, packages or fingerprints other than the manifest's apps, routes whose links would open the \
            browser, excluded routes that would open the app, patterns that open the app where no route matches. \
            --apple-cdn also reads Apple's CDN copy (https://app-site-association.cdn-apple.com/a/v1/HOST; another base \
            with SWITCHBOARD_APPLE_CDN). Exit status: 0 none found, 1 problems found, 2 the manifest or arguments \
            cannot be used.
            """
    )

    @Argument(help: ArgumentHelp("The origins to check, such as https://artsy.net.", valueName: "origin"))
    var origins: [String]

    @Option(help: ArgumentHelp("The manifest whose routes and apps the files must fit [default: Config/routes.json].", valueName: "manifest"))
    var config: String?

    @Option(help: ArgumentHelp("Take the routes and apps from a running server instead: its manifest and its own files.", valueName: "url"))
    var server: String?

    @Option(help: ArgumentHelp("The host the files are for, when an origin is an address (a test server on loopback).", valueName: "host"))
    var host: String?

    @Option(help: "text, json, junit, or github (workflow annotations).")
    var format: DiffFormat = .text

    @Flag(name: .customLong("apple-cdn"), help: "Also read Apple's CDN copy of each AASA, and report where it differs from the origin's.")
    var appleCDN = false

    func validate() throws {
        if config != nil && server != nil { throw ValidationError("give --config or --server, not both") }
        if format == .markdown { throw ValidationError("--format is text, json, junit or github") }
        for origin in origins { _ = try Self.host(of: origin) }
    }

    /// An origin's host; plain HTTP is refused but on loopback.
    static func host(of origin: String) throws -> String {
        guard let url = URL(string: origin), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty,
              url.path.isEmpty || url.path == "/" else {
            throw ValidationError("'\(origin)' is not an origin such as https://artsy.net")
        }
        let loopback = host == "localhost" || host.hasPrefix("127.") || host == "::1" || host == "[::1]"
        guard scheme == "https" || (scheme == "http" && loopback) else {
            throw ValidationError("'\(origin)': the verifiers fetch over HTTPS (plain HTTP only on loopback, for tests)")
        }
        return host
    }

    func run() throws {
        let expected = try expectation()
        var report: [DomainReport.Origin] = []
        for origin in origins {
            // The host as a phone names it (Apple's CDN keys its copy by it, www. and all);
            // the manifest's routes and apps by its key.
            let named = try (host ?? Self.host(of: origin)).lowercased()
            guard case .success(let key) = HostName.key(listed: named), expected.compiled.scope.hosts.contains(key) else {
                printError("switchboard: \(named) is not one of the manifest's hosts")
                throw ExitCode(2)
            }
            let base = origin.hasSuffix("/") ? String(origin.dropLast()) : origin
            var problems: [DomainVerification.Problem] = []
            if let ids = expected.appleAppIDs(key), !ids.isEmpty {
                let apple = Fetcher.get(base + "/.well-known/apple-app-site-association", host: host)
                problems += DomainVerification.checkApple(apple, compiled: expected.compiled, host: key, appIDs: ids)
                if appleCDN {
                    let cdnBase = ProcessInfo.processInfo.environment["SWITCHBOARD_APPLE_CDN"] ?? "https://app-site-association.cdn-apple.com"
                    let cdn = Fetcher.get(cdnBase + "/a/v1/" + named, host: nil)
                    problems += DomainVerification.compareCDN(cdn, origin: apple)
                }
            }
            if let android = expected.android(key), !android.isEmpty {
                let links = Fetcher.get(base + "/.well-known/assetlinks.json", host: host)
                problems += DomainVerification.checkAndroid(links, apps: android)
            }
            report.append(DomainReport.Origin(origin: origin, host: named, problems: problems))
        }
        let rendered = DomainReport(origins: report)
        switch format {
        case .text, .markdown: print(rendered.text, terminator: "")
        case .json: print(rendered.json, terminator: "")
        case .junit: print(rendered.junit, terminator: "")
        case .github: print(rendered.githubAnnotations, terminator: "")
        }
        if rendered.problemCount > 0 { throw ExitCode(1) }
    }

    /// What the files must say: the manifest's routes, and its apps (from the file), or the
    /// running server's own files for the host (whose manifest carries no apps).
    struct Expectation {
        let compiled: CompiledManifest
        let appleAppIDs: (String) -> [String]?
        let android: (String) -> [Apps.AndroidApp]?
    }

    func expectation() throws -> Expectation {
        guard let server else {
            let compiled = try Diagnostics.loadOrExit(config ?? "Config/routes.json", serving: true)
            let apps = compiled.manifest.apps
            guard apps != nil else {
                printError("switchboard: the manifest names no apps: add \"apps\" with the Apple app IDs and Android packages its links open")
                throw ExitCode(2)
            }
            return Expectation(compiled: compiled, appleAppIDs: { _ in apps?.appleAppIDs }, android: { _ in apps?.android })
        }
        let remote = try RemoteServer(server)
        let compiled = try remote.manifest()
        let base = remote.base
        return Expectation(compiled: compiled, appleAppIDs: { host in
            let served = Fetcher.get(base + "/.well-known/apple-app-site-association", host: host)
            guard served.status == 200, let document = try? JSONParser.parse(served.body) else { return nil }
            return (document["applinks"]?["details"]?.arrayValue ?? []).flatMap { ($0["appIDs"]?.arrayValue ?? []).compactMap(\.stringValue) }
        }, android: { host in
            let served = Fetcher.get(base + "/.well-known/assetlinks.json", host: host)
            guard served.status == 200, let document = try? JSONParser.parse(served.body) else { return nil }
            return (document.arrayValue ?? []).compactMap { statement in
                guard let target = statement["target"], let package = target["package_name"]?.stringValue else { return nil }
                return Apps.AndroidApp(package: package,
                                       sha256CertFingerprints: (target["sha256_cert_fingerprints"]?.arrayValue ?? []).compactMap(\.stringValue))
            }
        })
    }
}

/// GETs as the verifiers do: no redirect followed, a short timeout, the body read whole up
/// to a bound.
enum Fetcher {
    /// Bytes read of a file at most: past Apple's limit, enough to say it is past it.
    static let bodyLimit = 4 << 20

    final class RefuseRedirects: NSObject, URLSessionTaskDelegate {
        func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
            completionHandler(nil)
        }
    }

    static func get(_ address: String, host: String?) -> DomainVerification.Fetched {
        guard let url = URL(string: address) else {
            return DomainVerification.Fetched(url: address, status: nil, headers: [:], body: [], failure: "not a URL")
        }
        var request = URLRequest(url: url, timeoutInterval: 10)
        request.setValue("switchboard verify-domain", forHTTPHeaderField: "User-Agent")
        if let host { request.setValue(host, forHTTPHeaderField: "Host") }
        let session = URLSession(configuration: .ephemeral, delegate: RefuseRedirects(), delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let outcome = Locked<DomainVerification.Fetched?>(nil)
        let done = DispatchSemaphore(value: 0)
        session.dataTask(with: request) { data, response, error in
            let fetched: DomainVerification.Fetched
            if let http = response as? HTTPURLResponse {
                var headers: [String: String] = [:]
                for (name, value) in http.allHeaderFields {
                    if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
                }
                fetched = DomainVerification.Fetched(url: address, status: http.statusCode, headers: headers,
                                                     body: [UInt8]((data ?? Data()).prefix(bodyLimit)))
            } else {
                fetched = DomainVerification.Fetched(url: address, status: nil, headers: [:], body: [],
                                                     failure: error?.localizedDescription ?? "no answer")
            }
            outcome.withLock { $0 = fetched }
            done.signal()
        }.resume()
        done.wait()
        return outcome.withLock { $0 } ?? DomainVerification.Fetched(url: address, status: nil, headers: [:], body: [], failure: "no answer")
    }
}
