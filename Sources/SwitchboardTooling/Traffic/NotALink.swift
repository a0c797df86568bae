/// A request that is not someone opening a link, counted apart by `traffic` and
/// `diff --traffic` (unless `--include-bots`): crawlers and scripts by their user agent,
/// files a page loads, the paths platforms and browsers ask for themselves, and scanners'
/// probes. Kept out, they neither inflate a route's hits nor fill "links that go nowhere".
package enum NotALink: String, Sendable, CaseIterable {
    case bot
    /// `.css`, `.js`, images, fonts, media.
    case staticFile = "static"
    /// `/.well-known/`, `/favicon.ico`, `/robots.txt`, `/apple-app-site-association`, sitemaps.
    case wellKnown = "well-known"
    /// Probes for software the app does not run (`/wp-admin`, `/.git`, `/phpmyadmin`, `.php`).
    case scanner

    /// What a request for `url` with user agent `agent` is when it is not a link, nil when
    /// it is one. Read on the URL's bytes, ASCII case folded, with no copy: it runs on every
    /// line of a log. `isBot`: the agent's verdict, which a reader keeps per distinct agent.
    package static func classify(url: String, isBot: Bool) -> NotALink? {
        if isBot { return .bot }
        let bytes = url.utf8
        var start = bytes.startIndex
        // The path of an http(s) URL: past `scheme://host`.
        if bytes.first != UInt8(ascii: "/"), let colon = bytes.firstIndex(of: UInt8(ascii: ":")) {
            start = bytes.index(after: colon)
            if bytes[start...].starts(with: "//".utf8) {
                let host = bytes.index(start, offsetBy: 2)
                start = bytes[host...].firstIndex(of: UInt8(ascii: "/")) ?? bytes.endIndex
            }
        }
        let end = bytes[start...].firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.endIndex
        let path = bytes[start..<end]
        guard path.count >= 2 else { return nil }
        // Only paths whose first two letters some listed path starts with are compared with them.
        let second = path.index(after: path.startIndex)
        let third = path.index(after: second)
        if third < path.endIndex, let candidates = byFirstLetters[UInt16(fold(path[second])) << 8 | UInt16(fold(path[third]))] {
            for (prefix, kind, whole) in candidates where startsFolded(path, prefix) && (!whole || path.count == prefix.count) {
                return kind
            }
        }
        // The last segment's extension.
        var dot: String.UTF8View.Index?
        var i = path.endIndex
        while i > path.startIndex {
            i = path.index(before: i)
            let b = path[i]
            if b == UInt8(ascii: "/") { break }
            if b == UInt8(ascii: ".") { dot = i; break }
        }
        guard let dot else { return nil }
        let ext = path[path.index(after: dot)...]
        guard ext.count <= 5 else { return nil }
        if scannerExtensions.contains(where: { equalFolded(ext, $0) }) { return .scanner }
        if staticExtensions.contains(where: { equalFolded(ext, $0) }) { return .staticFile }
        return nil
    }

    @inline(__always) static func fold(_ b: UInt8) -> UInt8 { b &- UInt8(ascii: "A") < 26 ? b | 0x20 : b }

    static func startsFolded(_ path: Substring.UTF8View.SubSequence, _ prefix: [UInt8]) -> Bool {
        var i = path.startIndex
        for b in prefix {
            guard i < path.endIndex, fold(path[i]) == b else { return false }
            i = path.index(after: i)
        }
        return true
    }

    static func equalFolded(_ bytes: Substring.UTF8View.SubSequence, _ word: [UInt8]) -> Bool {
        startsFolded(bytes, word) && bytes.count == word.count
    }

    /// The listed paths by the two letters after their `/`: (path, kind, whether it must be the whole path).
    static let byFirstLetters: [UInt16: [(prefix: [UInt8], kind: NotALink, whole: Bool)]] = {
        var table: [UInt16: [(prefix: [UInt8], kind: NotALink, whole: Bool)]] = [:]
        let all = [("/.well-known/", NotALink.wellKnown, false)] + wellKnownPaths.map { ($0, NotALink.wellKnown, true) }
            + scannerPrefixes.map { ($0, NotALink.scanner, false) }
        for (text, kind, whole) in all {
            let bytes = Array(text.utf8)
            table[UInt16(bytes[1]) << 8 | UInt16(bytes[2]), default: []].append((bytes, kind, whole))
        }
        return table
    }()

    static let wellKnownPaths = ["/favicon.ico", "/robots.txt", "/apple-app-site-association", "/sitemap.xml", "/humans.txt", "/ads.txt",
                                 "/app-ads.txt", "/security.txt", "/browserconfig.xml", "/apple-touch-icon.png",
                                 "/apple-touch-icon-precomposed.png", "/manifest.json", "/site.webmanifest", "/crossdomain.xml"]
    static let scannerPrefixes = ["/wp-", "/wordpress", "/phpmyadmin", "/pma/", "/.git", "/.env", "/.aws", "/.ssh", "/.svn", "/.hg",
                                  "/.ds_store", "/cgi-bin", "/xmlrpc", "/boaform", "/actuator", "/vendor/phpunit", "/server-status",
                                  "/hnap1", "/owa/", "/autodiscover", "/solr/", "/console/", "/manager/html", "/_ignition", "/telescope",
                                  "/.vscode", "/.idea", "/config.json", "/admin.php", "/shell", "/setup.cgi"]
    static let scannerExtensions = ["php", "asp", "aspx", "jsp", "cgi", "env", "bak", "sql", "ini", "yml", "yaml"].map { Array($0.utf8) }
    static let staticExtensions = ["css", "js", "mjs", "map", "png", "jpg", "jpeg", "gif", "svg", "ico", "webp", "avif", "bmp", "woff",
                                   "woff2", "ttf", "otf", "eot", "mp4", "webm", "mp3", "wav", "ogg", "pdf", "zip", "gz", "txt", "xml",
                                   "json", "wasm"].map { Array($0.utf8) }

    /// Crawlers, link previews, monitors, scanners and HTTP libraries used by scripts, by a
    /// word of their user agent (compared without case). An app's own HTTP stack (okhttp,
    /// CFNetwork, Dalvik) is a person opening a link, and is not here.
    static let botWords = ["bot", "crawl", "spider", "slurp", "facebookexternalhit", "embedly", "preview", "curl/", "wget/",
                           "python-requests", "python-urllib", "aiohttp", "go-http-client", "java/", "libwww", "httpie", "headlesschrome",
                           "phantomjs", "scrapy", "pingdom", "uptime", "monitor", "zgrab", "masscan", "nmap", "nikto", "sqlmap",
                           "node-fetch", "axios/", "lighthouse", "whatsapp", "telegram", "discord", "validator", "scanner",
                           "switchboard-"].map { Array($0.utf8) }

    /// Whether `agent` names a crawler or a script: one of ``botWords`` in it, without case.
    static func isBot(_ agent: String) -> Bool {
        let lower = agent.utf8.map { $0 &- UInt8(ascii: "A") < 26 ? $0 | 0x20 : $0 }
        return botWords.contains { word in
            guard lower.count >= word.count else { return false }
            var i = 0
            while i + word.count <= lower.count {
                if lower[i] == word[0], lower[i..<(i + word.count)].elementsEqual(word) { return true }
                i += 1
            }
            return false
        }
    }
}
