import Switchboard
/// Conformance vectors (docs/clients.md): one JSON document with a manifest and the cases any
/// client that resolves offline must answer exactly as the server does, as Unleash's
/// client-specification is for its SDKs. `switchboard export conformance` writes it; the
/// project's own client and server are proved against it in the tests.
///
/// ```json
/// {"format":"switchboard-conformance","contract":1,"generator":"...","etag":"\"sha256-…\"",
/// "manifest":{…},
/// "cases":[
/// {"url":"/artwork/sample","context":{},"expect":{"url":"/artwork/sample","status":"matched",…}},
/// …
/// ]}
/// ```
///
/// The cases: every URL of ``URLCorpus`` (every expansion of every route with fitting and
/// failing values, with and without query params, on each host, an unlisted host and each
/// scheme), each in every context that changes its result (the platforms, idioms and
/// app-version boundaries of the routes it reaches, as `switchboard diff` explores them),
/// then hostile URLs, each of which is refused for its own reason. `expect` is the result
/// JSON of `GET /v1/resolve` byte for byte: keys in the contract's order, compact.
package enum ConformanceVectors {
    /// The version of the resolution contract the cases prove: raised whenever a rule of
    /// docs/manifest.md changes what a URL resolves to, so a client knows which rules it passes.
    package static let contractVersion = 1

    /// One case: the URL, the context (empty when none), the result JSON.
    package struct Case: Sendable {
        package let url: String
        package let context: ResolveContext
        package let expect: [UInt8]
    }

    /// The cases for `compiled`: the corpus, then `urls` (a table's own edge cases), then
    /// hostile URLs; no URL and context twice.
    package static func cases(for compiled: CompiledManifest, urls: [String] = []) -> [Case] {
        var cases: [Case] = []
        var seen: Set<String> = []
        var exploration = ContextExploration([compiled])
        func add(_ url: String, _ context: ResolveContext, _ result: Resolution) {
            cases.append(Case(url: url, context: context, expect: compiled.resultJSON(result)))
        }
        for url in URLCorpus(compiled.manifest).items.map(\.url) + urls where seen.insert(url).inserted {
            let explored = exploration.explore(url)
            let results = explored.map { compiled.resolve(url, context: $0.context) }
            let plain = results[0]
            // Every context that was tried when any of them answers otherwise, so a client
            // that is off by one at a version boundary fails on the boundary itself.
            let varies = results.dropFirst().contains { compiled.resultJSON($0) != compiled.resultJSON(plain) }
            add(url, .empty, plain)
            if varies {
                for (tried, result) in zip(explored.dropFirst(), results.dropFirst()) { add(url, tried.context, result) }
            }
        }
        for url in hostileURLs(compiled.manifest) where seen.insert(url).inserted {
            add(url, .empty, compiled.resolve(url))
        }
        return cases
    }

    /// The document: one line for the head and manifest, one per case, so a repository that
    /// keeps it shows a routing change as a diff of the cases it changed.
    package static func document(for compiled: CompiledManifest, urls: [String] = [], generator: String) -> [UInt8] {
        var w = JSONWriter(capacity: compiled.canonicalBytes.count + 4096)
        w.raw("{\"format\":\"switchboard-conformance\",\"contract\":")
        w.integer(Int64(contractVersion))
        w.raw(",\"generator\":")
        w.string(generator)
        w.raw(",\"etag\":")
        w.string(compiled.etag)
        w.raw(",\n\"manifest\":")
        w.bytes += compiled.canonicalBytes
        w.raw(",\n\"cases\":[")
        for (i, c) in cases(for: compiled, urls: urls).enumerated() {
            w.raw(i == 0 ? "\n" : ",\n")
            w.raw("{\"url\":")
            w.string(c.url)
            w.raw(",\"context\":")
            w.write(c.context.json)
            w.raw(",\"expect\":")
            w.bytes += c.expect
            w.byte(UInt8(ascii: "}"))
        }
        w.raw("\n]}\n")
        return w.bytes
    }

    /// URLs a client must refuse (or treat as the server does) whatever the manifest: one
    /// for each reason of ``URLRejection``, and near misses that must not be refused
    /// (case, trailing dot, `www.`, encoded characters), on the manifest's first host and
    /// the path of its first route.
    static func hostileURLs(_ manifest: Manifest) -> [String] {
        let host = manifest.hosts.first ?? "example.com"
        let scheme = manifest.schemes.first ?? "app"
        // The path of the first generated URL with a segment, without origin and query.
        let path = "/" + (URLCorpus(manifest).items.lazy.map { item in
            var text = Substring(item.url)
            if let origin = text.range(of: "://") { text = text[origin.upperBound...].drop { $0 != "/" } }
            return String(text.dropFirst().prefix { $0 != "?" && $0 != "#" })
        }.first { !$0.isEmpty } ?? "")
        return [
            "", " ", "https://\(host)\(path) ", "https://\(host)/a b", "https://\(host)/a\tb", "https://\(host)/a\nb",
            "https://\(host)/a\u{7F}", "https://\(host)\\\(path.dropFirst())", "https://\(host)/%ZZ", "https://\(host)/%4",
            "https://\(host)/%FF", "https://\(host)/%C3%28", "https://\(host)/a%00b", "https://\(host)/%E2%82?x=%E2%82",
            "https://user:secret@\(host)\(path)", "https://@\(host)\(path)", "javascript:alert(1)", "JavaScript:alert(1)",
            "data:text/html,<script>alert(1)</script>", "vbscript:msgbox", "file:///etc/passwd", "https://\(host):99999\(path)",
            "https://\(host):-1\(path)", "https://\(host):\(path)", "https:///\(host)\(path)", "https:////\(host)\(path)",
            "https://\(path)", "https://", "https://exa mple.com/", "https://ex%41mple.com/", "https://xn--/", "https://a..b/",
            "https://[::1]/", "https://[::1/", "https://127.0.0.1\(path)", "https://" + String(repeating: "a", count: 64) + ".com/",
            "https://\(host)/" + String(repeating: "a", count: 8200), "https://\(host)/" + String(repeating: "%41", count: 2000),
            "HTTPS://\(host.uppercased())\(path)", "https://\(host).\(path)", "https://www.\(host)\(path)",
            "https://\(host):443\(path)", "http://\(host):80\(path)", "https://\(host):8443\(path)", "//\(host)\(path)",
            "\(scheme):\(path)", "\(scheme):/\(path)", "\(scheme.uppercased())://\(path.dropFirst())",
            "https://\(host)\(path)/", "https://\(host)\(path)//", "https://\(host)/./\(path.dropFirst())",
            "https://\(host)/../\(path.dropFirst())", "https://\(host)\(path)/..", "https://\(host)\(path)%2F",
            "https://\(host)\(path)?", "https://\(host)\(path)#", "https://\(host)\(path)#a%20b", "https://\(host)\(path)?a=1&a=2&b",
            "https://\(host)\(path)?%61=%62+c", "https://\(host)/caf%C3%A9", "https://\(host)/café", "https://\(host)/\u{1F600}",
            "https://bücher.example/", "https://xn--bcher-kva.example/", "mailto:someone@\(host)", "tel:+15555550100",
            "/", "\(path)", "relative\(path)", "?q=1", "#fragment",
        ]
    }
}
