import Switchboard

/// What `verify-domain` finds at a live domain: its association files, as the phones'
/// verifiers fetch them, checked against the manifest and its `apps` (docs/pipelines.md).
package enum DomainVerification {
    /// One fetched file: its status, headers (names lowercased) and body; nil status when
    /// it could not be fetched at all.
    package struct Fetched: Sendable {
        package let url: String
        package let status: Int?
        package let headers: [String: String]
        package let body: [UInt8]
        /// Why it could not be fetched (a timeout, a refused connection, TLS).
        package let failure: String?

        package init(url: String, status: Int?, headers: [String: String], body: [UInt8], failure: String? = nil) {
            self.url = url
            self.status = status
            self.headers = headers
            self.body = body
            self.failure = failure
        }
    }

    /// A problem, named by what a phone would see.
    package struct Problem: Sendable, Equatable {
        package enum Kind: String, Sendable {
            case unreachable, status, redirect, contentType = "content-type", size, notJSON = "not-json"
            case appIDs = "app-ids", packages, fingerprints
            case notCovered = "not-covered", excludedOpens = "excluded-opens", unmatchedPattern = "unmatched-pattern"
            case cdnDiffers = "cdn-differs"
        }

        package let url: String
        package let kind: Kind
        package let message: String
    }

    /// The problems of an `apple-app-site-association` fetched for `host` (a host key).
    package static func checkApple(_ fetched: Fetched, compiled: CompiledManifest, host: String, appIDs: [String]) -> [Problem] {
        var problems: [Problem] = []
        guard let document = checkFile(fetched, limit: AssociationFiles.appleLimit, &problems) else { return problems }
        let served = Set((document["applinks"]?["details"]?.arrayValue ?? []).flatMap { detail in
            (detail["appIDs"]?.arrayValue ?? []).compactMap(\.stringValue) + (detail["appID"]?.stringValue.map { [$0] } ?? [])
        })
        let expected = Set(appIDs)
        if served != expected {
            problems.append(Problem(url: fetched.url, kind: .appIDs, message: differences("app IDs", served: served, expected: expected)))
        }
        guard let rules = AppSiteAssociation.rules(document) else {
            problems.append(Problem(url: fetched.url, kind: .notJSON, message: "no applinks.details: iOS finds no links in it"))
            return problems
        }
        for line in AppSiteAssociation.check(rules, compiled, host: host) {
            let kind: Problem.Kind = line.contains("is not covered") ? .notCovered : line.contains("universalLink false") ? .excludedOpens : .unmatchedPattern
            problems.append(Problem(url: fetched.url, kind: kind, message: line))
        }
        return problems
    }

    /// The problems of an `assetlinks.json` fetched, against the manifest's Android apps.
    package static func checkAndroid(_ fetched: Fetched, apps: [Apps.AndroidApp]) -> [Problem] {
        var problems: [Problem] = []
        guard let document = checkFile(fetched, limit: nil, &problems) else { return problems }
        var served: [String: Set<String>] = [:]
        for statement in document.arrayValue ?? [] {
            let relations = (statement["relation"]?.arrayValue ?? []).compactMap(\.stringValue)
            guard relations.contains("delegate_permission/common.handle_all_urls"),
                  let target = statement["target"], target["namespace"]?.stringValue == "android_app",
                  let package = target["package_name"]?.stringValue else { continue }
            served[package, default: []].formUnion((target["sha256_cert_fingerprints"]?.arrayValue ?? []).compactMap(\.stringValue))
        }
        let expected = Dictionary(apps.map { ($0.package, Set($0.sha256CertFingerprints)) }, uniquingKeysWith: { $0.union($1) })
        if Set(served.keys) != Set(expected.keys) {
            problems.append(Problem(url: fetched.url, kind: .packages,
                                    message: differences("packages", served: Set(served.keys), expected: Set(expected.keys))))
        }
        for (package, fingerprints) in expected.sorted(by: { $0.key < $1.key }) {
            guard let found = served[package], found != fingerprints else { continue }
            problems.append(Problem(url: fetched.url, kind: .fingerprints,
                                    message: differences("fingerprints of \(package)", served: found, expected: fingerprints)))
        }
        return problems
    }

    /// Where Apple's CDN copy differs from the origin's file.
    package static func compareCDN(_ cdn: Fetched, origin: Fetched) -> [Problem] {
        var problems: [Problem] = []
        guard let copy = checkFile(cdn, limit: AssociationFiles.appleLimit, &problems) else { return problems }
        let original = (try? JSONParser.parse(origin.body))?.sortingKeys()
        if copy.sortingKeys() != original {
            problems.append(Problem(url: cdn.url, kind: .cdnDiffers,
                                    message: "Apple's CDN hands devices another file than \(origin.url) serves: devices act on the CDN's until it fetches again"))
        }
        return problems
    }

    /// The checks every file gets: fetched, 200 (a redirect named as such), JSON by its
    /// content type, within `limit`, and JSON by its bytes; the document, or nil.
    private static func checkFile(_ fetched: Fetched, limit: Int?, _ problems: inout [Problem]) -> JSONValue? {
        let url = fetched.url
        guard let status = fetched.status else {
            problems.append(Problem(url: url, kind: .unreachable, message: "could not be fetched: \(fetched.failure ?? "no answer")"))
            return nil
        }
        if (300..<400).contains(status) {
            let location = fetched.headers["location"].map { " to \($0)" } ?? ""
            problems.append(Problem(url: url, kind: .redirect, message: "answered \(status)\(location): the verifiers do not follow redirects"))
            return nil
        }
        guard status == 200 else {
            problems.append(Problem(url: url, kind: .status, message: "answered \(status), not 200"))
            return nil
        }
        let type = fetched.headers["content-type"] ?? ""
        let mediaType = type.split(separator: ";").first.map { $0.trimmingWhitespace().lowercased() } ?? ""
        if mediaType != "application/json" {
            problems.append(Problem(url: url, kind: .contentType,
                                    message: "served as \(type.isEmpty ? "no content type" : type), not application/json"))
        }
        if let limit, fetched.body.count > limit {
            problems.append(Problem(url: url, kind: .size, message: "\(fetched.body.count) bytes, past Apple's \(limit): iOS reads none of it"))
        }
        guard let document = try? JSONParser.parse(fetched.body) else {
            problems.append(Problem(url: url, kind: .notJSON, message: "is not JSON (it starts \(String(decoding: fetched.body.prefix(40), as: UTF8.self).debugDescription))"))
            return nil
        }
        return document
    }

    private static func differences(_ what: String, served: Set<String>, expected: Set<String>) -> String {
        var parts: [String] = []
        let missing = expected.subtracting(served).sorted(), extra = served.subtracting(expected).sorted()
        if !missing.isEmpty { parts.append("missing \(missing.joined(separator: ", "))") }
        if !extra.isEmpty { parts.append("not the manifest's: \(extra.joined(separator: ", "))") }
        return "\(what) differ from the manifest's apps: " + parts.joined(separator: "; ")
    }
}

extension Substring {
    fileprivate func trimmingWhitespace() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}

/// `verify-domain`'s report: each origin and its problems, in four formats.
package struct DomainReport: Sendable {
    package struct Origin: Sendable {
        package let origin: String
        package let host: String
        package let problems: [DomainVerification.Problem]

        package init(origin: String, host: String, problems: [DomainVerification.Problem]) {
            self.origin = origin
            self.host = host
            self.problems = problems
        }
    }

    package let origins: [Origin]
    package init(origins: [Origin]) { self.origins = origins }

    package var problemCount: Int { origins.reduce(0) { $0 + $1.problems.count } }

    package var text: String {
        var out = ""
        for origin in origins {
            if origin.problems.isEmpty {
                out += "\(origin.origin): OK: its association files open the app for the manifest's routes on \(origin.host)\n"
                continue
            }
            out += "\(origin.origin): \(origin.problems.count) problem\(origin.problems.count == 1 ? "" : "s")\n"
            for problem in origin.problems { out += "  \(problem.kind.rawValue): \(problem.url): \(problem.message)\n" }
        }
        return out
    }

    package var json: String {
        let document = JSONValue.object([
            .init("valid", .bool(problemCount == 0)),
            .init("origins", .array(origins.map { origin in
                .object([
                    .init("origin", .string(origin.origin)),
                    .init("host", .string(origin.host)),
                    .init("problems", .array(origin.problems.map { problem in
                        .object([.init("kind", .string(problem.kind.rawValue)), .init("url", .string(problem.url)),
                                 .init("message", .string(problem.message))])
                    })),
                ])
            })),
        ])
        return String(decoding: document.serialized(), as: UTF8.self) + "\n"
    }

    package var junit: String {
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuite name=\"switchboard verify-domain\" tests=\"\(origins.count)\" failures=\"\(origins.filter { !$0.problems.isEmpty }.count)\">\n"
        for origin in origins {
            xml += "  <testcase classname=\"verify-domain\" name=\"\(XMLText.escape(origin.origin))\""
            if origin.problems.isEmpty {
                xml += " />\n"
                continue
            }
            xml += ">\n    <failure message=\"\(origin.problems.count) problems\">"
            xml += XMLText.escape(origin.problems.map { "\($0.kind.rawValue): \($0.url): \($0.message)" }.joined(separator: "\n"))
            xml += "</failure>\n  </testcase>\n"
        }
        return xml + "</testsuite>\n"
    }

    package var githubAnnotations: String {
        origins.flatMap { origin in
            origin.problems.map { problem in
                "::error title=\(GitHubAnnotation.escapeProperty("verify-domain \(origin.host): \(problem.kind.rawValue)"))::"
                    + GitHubAnnotation.escapeData("\(problem.url): \(problem.message)")
            }
        }.joined(separator: "\n") + "\n"
    }
}
